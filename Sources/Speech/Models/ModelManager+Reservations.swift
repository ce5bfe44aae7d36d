import Foundation

/// A running session's claim on a locale's model: while it is held the model cannot be removed, and it counts
/// against `ModelManager.maxReservedLocales`. Release it with `ModelManager.release(_:)`.
public struct ModelReservation: Sendable, Hashable, Identifiable {
    /// Tells this reservation from every other, including others of the same locale.
    public let id: UUID
    /// The supported locale reserved (the bare language, such as `en` for `en_GB`).
    public let locale: Locale
    /// The model that serves it.
    public let modelName: String
}

/// The reservations a manager holds.
struct ReservationBook {
    private(set) var all: [ModelReservation] = []

    /// Distinct reserved locales, in the order first reserved.
    var locales: [Locale] {
        var seen: [Locale] = []
        for reservation in all where !seen.contains(reservation.locale) { seen.append(reservation.locale) }
        return seen
    }

    mutating func add(_ reservation: ModelReservation) { all.append(reservation) }

    mutating func remove(_ reservation: ModelReservation) { all.removeAll { $0.id == reservation.id } }
}

extension ModelManager {
    /// Reserves `locale`'s model for a session. Several sessions may reserve the same locale; each gets its own
    /// reservation.
    /// - Throws: `.unsupportedLocale`, or `.tooManyReservedLocales` when `maxReservedLocales` other locales are held.
    public func reserve(locale: Locale) throws -> ModelReservation {
        guard let supported = catalog.supportedLocale(equivalentTo: locale) else { throw SpeechModelError.unsupportedLocale(locale) }
        let reserved = reservations.locales
        if !reserved.contains(supported), reserved.count >= maxReservedLocales {
            throw SpeechModelError.tooManyReservedLocales(maximum: maxReservedLocales, reserved: reserved)
        }
        let reservation = ModelReservation(id: UUID(), locale: supported, modelName: try model(for: locale).name)
        reservations.add(reservation)
        return reservation
    }

    /// Releases one reservation and no other; releasing one already released does nothing.
    public func release(_ reservation: ModelReservation) {
        reservations.remove(reservation)
    }

    /// The distinct locales reserved now.
    public var reservedLocales: [Locale] { reservations.locales }
}

extension ModelManager {
    /// Reserves `locale` for the app (`AssetInventory.reserve(locale:)`): a reservation that lasts until
    /// `releaseForApp(locale:)`. Returns false when the app had reserved it already.
    /// - Throws: `.unsupportedLocale`, or `.tooManyReservedLocales`.
    @discardableResult
    func reserveForApp(locale: Locale) throws -> Bool {
        guard let supported = catalog.supportedLocale(equivalentTo: locale) else { throw SpeechModelError.unsupportedLocale(locale) }
        if appReservations[supported] != nil { return false }
        appReservations[supported] = try reserve(locale: locale)
        return true
    }

    /// Releases the app's reservation of `locale`; returns false when there was none.
    func releaseForApp(locale: Locale) -> Bool {
        guard let supported = catalog.supportedLocale(equivalentTo: locale),
            let reservation = appReservations.removeValue(forKey: supported)
        else { return false }
        release(reservation)
        return true
    }
}
