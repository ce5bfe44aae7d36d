/// A kind of media a capture device records.
public struct AVMediaType: RawRepresentable, Hashable, Sendable {
    /// The type's four-character name, such as "soun".
    public let rawValue: String

    /// A media type named `rawValue`.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Sound: microphones.
    public static let audio = AVMediaType(rawValue: "soun")
    /// Pictures: cameras.
    public static let video = AVMediaType(rawValue: "vide")
}

/// Whether the app may record a kind of media.
public enum AVAuthorizationStatus: Int, Sendable {
    /// The user has not been asked yet.
    case notDetermined = 0
    /// The app may not ask (parental controls, device management).
    case restricted = 1
    /// The user said no.
    case denied = 2
    /// The app may record.
    case authorized = 3
}

/// The capture devices' permission questions, which is all of `AVCaptureDevice` that speech apps call.
///
/// ```swift
/// guard await AVCaptureDevice.requestAccess(for: .audio) else { return }
/// ```
///
/// Linux asks no permission to record: any process of the user may open the sound server's inputs. So the status is
/// always `.authorized` and a request is granted at once, where Apple's system asks the user the first time.
public final class AVCaptureDevice: NSObject, Sendable {
    private override init() {
        super.init()
    }

    /// `.authorized`: Linux asks no permission (see the type's note).
    public static func authorizationStatus(for mediaType: AVMediaType) -> AVAuthorizationStatus {
        .authorized
    }

    /// Calls `handler` with true, on a background queue, as Apple's calls it on an arbitrary one: Linux asks no
    /// permission.
    public static func requestAccess(for mediaType: AVMediaType, completionHandler handler: @escaping @Sendable (Bool) -> Void) {
        DispatchQueue.global().async { handler(true) }
    }

    /// True, at once: Linux asks no permission.
    public static func requestAccess(for mediaType: AVMediaType) async -> Bool {
        true
    }
}
