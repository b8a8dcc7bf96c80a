import C1nkGLib
import C1nkWeb
import FoundationEssentials
import Glibc

extension Doctor {
    /// With `--web-port` and `--rtsp-port`: where each listens (every IPv4
    /// address unless told otherwise, said so), and the page's certificate:
    /// its SHA-256 fingerprint, to compare with what a phone shows, and the
    /// names and addresses it covers.
    static func web(_ commandLine: AnswerCommandLine) -> [Line] {
        var lines: [Line] = []
        let web = commandLine.web
        if let port = web.port {
            if web.plainHTTP {
                lines.append(Line(ok: true, text: "web page: plain HTTP on 127.0.0.1 port \(port) only (for a local TLS proxy)"))
            } else if let address = web.address {
                lines.append(Line(ok: true, text: "web page: HTTPS on \(address) port \(port) only"))
            } else {
                lines.append(Line(ok: true, text: "web page: HTTPS on every IPv4 interface (0.0.0.0) port \(port): anyone on these networks reaches its login"
                                  + " (--web-address ADDRESS for one)"))
            }
            if !web.plainHTTP { lines.append(certificate(web)) }
        }
        if let port = commandLine.rtsp.port {
            let place = commandLine.rtsp.address.map { "\($0) port \(port) only" }
                ?? "every IPv4 interface (0.0.0.0) port \(port) (--rtsp-address ADDRESS for one)"
            lines.append(Line(ok: true, text: "RTSP restream on \(place), " + (commandLine.rtsp.anonymous ? "without a login" : "with a login")))
        }
        return lines
    }

    private static func certificate(_ web: WebCommandOptions) -> Line {
        let given = web.certificate
        let path = given ?? WebCertificate.defaultFolder() + "/web-cert.pem"
        guard given != nil || access(path, R_OK) == 0 else {
            return Line(ok: true, text: "web certificate: a self-signed one is made at the first start in \(path)")
        }
        let info: TLSCertificateInfo
        do { info = try TLSCertificateInfo(file: path) } catch {
            return Line(ok: false, text: "web certificate \(path) cannot be read: \(error)",
                        fix: given == nil ? "remove it (a new one is made at the next start)" : "give a readable PEM certificate with --web-cert")
        }
        let names = (info.dnsNames + info.ipAddresses).joined(separator: ", ")
        let text = "web certificate \(path): SHA-256 \(info.sha256); names \(names)"
        guard given == nil else { return Line(ok: true, text: text) }
        let lacking = WebCertificate.missing(in: path, hostname: MQTTCommandOptions.hostname(), addresses: WebCertificate.lanAddresses())
        guard lacking.isEmpty else {
            return Line(ok: false, text: text + "; it lacks \(lacking.joined(separator: ", ")), so the next start makes it anew",
                        fix: "restart c1nk-gst-answer (phones that trusted the old certificate are asked again)", advisory: true)
        }
        return Line(ok: true, text: text)
    }
}
