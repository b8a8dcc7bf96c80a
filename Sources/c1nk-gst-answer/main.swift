import C1nkDisplay
import C1nkGLib
import C1nkMedia
import Glibc

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "web-password" { exit(WebPasswordCommand.run(Array(arguments.dropFirst()))) }
if arguments.first == "config" { exit(ConfigCheckCommand.run(Array(arguments.dropFirst()))) }
let commandLine: AnswerCommandLine
do {
    commandLine = try AnswerCommandLine.parse(arguments)
} catch {
    FileOutput.standardError.write("c1nk-gst-answer: \(error)\nRun c1nk-gst-answer --help to see the options.\n", priority: .error)
    exit(2)
}
if commandLine.help {
    print(AnswerCommandLine.usage)
    exit(0)
}
if commandLine.printHistory {
    print(RingHistory(warn: { FileOutput.standardError.write("c1nk-gst-answer: warning: \($0)\n", priority: .warning) }).text(), terminator: "")
    exit(0)
}
if commandLine.printConfig {
    print(commandLine.printedConfig)
    exit(0)
}
// Two malloc arenas, not glibc's 8 a core (docs/benchmarks.md, "Soak").
HeapTrim.limitArenas()
GStreamer.initialize()
if let debug = commandLine.gstDebug { GStreamer.setDebug(debug) }
if commandLine.doctor { exit(Doctor.run(commandLine)) }
exit(commandLine.demo ? Demo.run(commandLine) : AnswerCommand.run(commandLine))
