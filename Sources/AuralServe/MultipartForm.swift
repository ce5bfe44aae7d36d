import CCivetWeb
import Foundation

/// A `multipart/form-data` (or url-encoded) request body as civetweb parses it: the text fields, and the uploaded
/// file written to a temporary file as it arrives, so that memory does not grow with the upload.
struct MultipartForm {
    /// An uploaded file on disk.
    struct Upload {
        /// Where the bytes are (deleted by `MultipartForm.removeUpload`).
        var url: URL
        /// The name the client gave it.
        var filename: String
        /// Its size in bytes.
        var size: Int
    }

    /// The text fields by name, each with every value given (`timestamp_granularities[]` repeats).
    var fields: [String: [String]] = [:]
    /// The file field's upload, if there was one.
    var upload: Upload?

    /// The field's last value, or nil.
    func value(_ name: String) -> String? { fields[name]?.last }

    /// Reads the body of `exchange`, writing the field named `fileField` under `directory`.
    /// - Throws: `APIError` 413 when the body passes `limit` bytes, 400 when it is not a form.
    static func read(_ exchange: HTTPExchange, fileField: String, directory: URL, limit: Int) throws -> MultipartForm {
        if let length = exchange.contentLength, length > Int64(limit) { throw APIError.tooLarge(limitBytes: limit) }
        let contentType = exchange.header("Content-Type") ?? ""
        guard contentType.lowercased().hasPrefix("multipart/form-data") || contentType.lowercased().hasPrefix("application/x-www-form-urlencoded") else {
            throw APIError.invalidRequest(
                "The body must be multipart/form-data with the audio in a field named 'file' (got Content-Type '\(contentType)').")
        }
        let collector = FormCollector(fileField: fileField, directory: directory, limit: limit)
        var handler = mg_form_data_handler()
        handler.user_data = Unmanaged.passUnretained(collector).toOpaque()
        handler.field_found = { key, filename, _, _, data in
            let collector = Unmanaged<FormCollector>.fromOpaque(data!).takeUnretainedValue()
            return collector.begin(key: key.map { String(cString: $0) } ?? "", filename: filename.map { String(cString: $0) })
        }
        handler.field_get = { _, value, length, data in
            let collector = Unmanaged<FormCollector>.fromOpaque(data!).takeUnretainedValue()
            let bytes = UnsafeRawBufferPointer(start: value.map(UnsafeRawPointer.init), count: value == nil ? 0 : length)
            return collector.append(bytes: bytes)
        }
        let handled = withExtendedLifetime(collector) { mg_handle_form_request(exchange.connection, &handler) }
        collector.finish()
        if collector.exceededLimit {
            collector.removeFile()
            throw APIError.tooLarge(limitBytes: limit)
        }
        if let failure = collector.failure {
            collector.removeFile()
            throw failure
        }
        guard handled >= 0 else {
            collector.removeFile()
            throw APIError.invalidRequest("The multipart body is malformed (civetweb could not parse it). Send the form as your HTTP library builds it, with the boundary the Content-Type names.")
        }
        return collector.form
    }

    /// Deletes the uploaded file, if any.
    func removeUpload() {
        if let upload { try? FileManager.default.removeItem(at: upload.url) }
    }
}

/// Receives civetweb's form callbacks for one request.
private final class FormCollector {
    let fileField: String
    let directory: URL
    let limit: Int
    var form = MultipartForm()
    var exceededLimit = false
    var failure: APIError?
    private var file: FileHandle?
    private var fileURL: URL?
    private var fileName = ""
    private var fileBytes = 0
    private var totalBytes = 0
    private var textValue = Data()
    private var currentKey: String?

    init(fileField: String, directory: URL, limit: Int) {
        self.fileField = fileField
        self.directory = directory
        self.limit = limit
    }

    func begin(key: String, filename: String?) -> Int32 {
        endText()
        if key == fileField {
            guard file == nil else {
                failure = .invalidRequest("Send one file per request; the form has more than one '\(fileField)' field.", param: fileField)
                return Int32(MG_FORM_FIELD_STORAGE_ABORT)
            }
            let url = directory.appendingPathComponent("upload-\(UUID().uuidString)")
            guard FileManager.default.createFile(atPath: url.path, contents: nil), let handle = try? FileHandle(forWritingTo: url) else {
                failure = .internalError("Cannot write the upload to \(directory.path). Check that the folder exists and the disk has room.")
                return Int32(MG_FORM_FIELD_STORAGE_ABORT)
            }
            file = handle
            fileURL = url
            fileName = filename ?? "upload"
        }
        currentKey = key
        return Int32(MG_FORM_FIELD_STORAGE_GET)
    }

    /// A piece of the current field's value (civetweb names the field only with its first piece).
    func append(bytes: UnsafeRawBufferPointer) -> Int32 {
        let key = currentKey ?? ""
        totalBytes += bytes.count
        if totalBytes > limit {
            exceededLimit = true
            return Int32(MG_FORM_FIELD_HANDLE_ABORT)
        }
        if key == fileField, let file {
            do {
                try file.write(contentsOf: Data(bytes))
            } catch {
                failure = .internalError("Cannot store the upload: \(error.localizedDescription). Free disk space on the server.")
                return Int32(MG_FORM_FIELD_HANDLE_ABORT)
            }
            fileBytes += bytes.count
        } else {
            guard textValue.count + bytes.count <= 1 << 20 else {
                failure = .invalidRequest("The form field '\(key)' is longer than 1 MB.", param: key)
                return Int32(MG_FORM_FIELD_HANDLE_ABORT)
            }
            textValue.append(contentsOf: bytes)
        }
        return Int32(MG_FORM_FIELD_HANDLE_GET)
    }

    /// Ends the form: closes the file and keeps the last text field.
    func finish() {
        endText()
        if let file, let fileURL {
            try? file.close()
            form.upload = MultipartForm.Upload(url: fileURL, filename: fileName, size: fileBytes)
        }
        file = nil
    }

    func removeFile() {
        try? file?.close()
        file = nil
        if let fileURL { try? FileManager.default.removeItem(at: fileURL) }
        form.upload = nil
    }

    private func endText() {
        if let key = currentKey, key != fileField || file == nil {
            form.fields[key, default: []].append(String(decoding: textValue, as: UTF8.self))
        }
        currentKey = nil
        textValue = Data()
    }
}
