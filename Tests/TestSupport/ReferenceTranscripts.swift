import Foundation

/// What the bundled recordings read, as people wrote it (not as a model heard it): the reference for word error
/// rates. The texts live in `Tests/bundled-references.jsonl`, the manifest `scripts/live-bench` reads too.
public enum ReferenceTranscripts {
    /// `two_cities.wav`: the opening of Dickens's "A Tale of Two Cities" (1859, public domain).
    public static let twoCities = text(of: "two_cities.wav")

    /// The `text` of the manifest's entry for `audio`; a test without it cannot measure anything, so it stops.
    private static func text(of audio: String) -> String {
        let manifest = Fixtures.repositoryRoot.appendingPathComponent("Tests/bundled-references.jsonl")
        let lines = (try? String(contentsOf: manifest, encoding: .utf8))?.split(separator: "\n") ?? []
        for line in lines {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  (object["audio"] as? String)?.hasSuffix("/" + audio) == true, let text = object["text"] as? String
            else { continue }
            return text
        }
        fatalError("\(manifest.path) has no reference text for \(audio)")
    }
}
