import C1nkCommandLine
import C1nkGLibBase
import C1nkLocal
import Glibc

let usage = """
Usage: c1nk-gst-server [--port N] [--ring-timeout S] [--tls-cert FILE --tls-key FILE]

Runs the local C1nk signaling server on 127.0.0.1 (app protocol of the C1nk
client plus the door protocol of docs/protocol.md) until interrupted.

  --port N           port to listen on (default 8765; 0 picks a free one)
  --ring-timeout S   end a ring nobody accepts after S seconds (default 60)
  --tls-cert FILE    serve wss:// with this PEM certificate…
  --tls-key FILE     …and its PEM key (clients: c1nk-gst-answer --trust-ca FILE)
  --help             show this help

Logs: GST_DEBUG=c1nk-server:5 shows every message.
"""

var options = SignalServer.Options()
options.port = 8765
var certificate: String?
var key: String?
do {
    var reader = ArgumentReader(Array(CommandLine.arguments.dropFirst()))
    while let option = try reader.nextOption() {
        switch option {
        case "--help", "-h":
            print(usage)
            exit(0)
        case "--port":
            let port = try reader.integer(for: option)
            guard port <= 65535 else { throw ArgumentReader.UsageError("--port takes 0–65535, not \(port)") }
            options.port = UInt16(port)
        case "--ring-timeout": options.ringTimeout = try reader.number(for: option, minimum: 1)
        case "--tls-cert": certificate = try reader.value(for: option)
        case "--tls-key": key = try reader.value(for: option)
        default: throw ArgumentReader.UsageError("unknown option \(option)")
        }
    }
    switch (certificate, key) {
    case let (certificate?, key?): options.tlsCertificate = (certificate, key)
    case (nil, nil): break
    default: throw ArgumentReader.UsageError("--tls-cert and --tls-key go together")
    }
} catch {
    writeToStandardError("c1nk-gst-server: \(error)\nRun c1nk-gst-server --help to see the options.\n")
    exit(2)
}


let server: SignalServer
do {
    server = try SignalServer(options)
} catch {
    writeToStandardError("c1nk-gst-server: cannot listen on port \(options.port): \(error)\n")
    exit(1)
}
print("c1nk-gst-server: listening on \(server.url)")
print("  answer:  c1nk-gst-answer --server \(server.url) --stun none --ice-local-ip 127.0.0.1")
print("  ring:    c1nk-gst-door --server \(server.url) --ring")
var stopping = false
let watches = [UnixSignalWatch(signal: SIGINT) { stopping = true }, UnixSignalWatch(signal: SIGTERM) { stopping = true }]
MainContext.run(poll: nil) { stopping }
server.stop()
withExtendedLifetime(watches) {}
