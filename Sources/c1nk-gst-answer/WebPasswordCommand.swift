import C1nkWeb
import FoundationEssentials
import Glibc

/// `c1nk-gst-answer web-password [--web-password-file PATH]`: reads the new
/// password from standard input (its first line; typed without echo on a
/// terminal) and stores its yescrypt hash, owner-only.
enum WebPasswordCommand {
    static func run(_ arguments: [String]) -> Int32 {
        let stderr = FileOutput.standardError
        var path = WebCommandOptions.defaultPasswordFile
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "--web-password-file", let value = rest.popFirst() {
                path = value
            } else if argument.hasPrefix("--web-password-file=") {
                path = String(argument.dropFirst("--web-password-file=".count))
            } else {
                stderr.write("c1nk-gst-answer: web-password takes only --web-password-file PATH, not '\(argument)'\n", priority: .error)
                return 2
            }
        }
        let terminal = isatty(0) == 1
        if terminal { stderr.write("New web page password: ") }
        var settings = termios()
        if terminal {
            tcgetattr(0, &settings)
            var quiet = settings
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(0, TCSANOW, &quiet)
        }
        let line = readLine(strippingNewline: true)
        if terminal {
            tcsetattr(0, TCSANOW, &settings)
            stderr.write("\n")
        }
        guard let password = line, password.count >= 8 else {
            stderr.write("c1nk-gst-answer: the web page's password needs at least 8 characters\n", priority: .error)
            return 2
        }
        do {
            try WebSecretFile.write(try PasswordHash.make(password), to: path)
        } catch {
            stderr.write("c1nk-gst-answer: \(error)\n", priority: .error)
            return 1
        }
        stderr.write("c1nk-gst-answer: the web page's password is set (\(path))\n")
        return 0
    }
}
