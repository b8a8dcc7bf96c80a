import C1nkGst
import Glibc

let arguments = Array(CommandLine.arguments.dropFirst())
let commandLine: AnswerCommandLine
do {
    commandLine = try AnswerCommandLine.parse(arguments)
} catch {
    FileOutput.standardError.write("c1nk-gst-answer: \(error)\nRun c1nk-gst-answer --help to see the options.\n")
    exit(2)
}
if commandLine.help {
    print(AnswerCommandLine.usage)
    exit(0)
}
if commandLine.printHistory {
    print(RingHistory(warn: { FileOutput.standardError.write("c1nk-gst-answer: warning: \($0)\n") }).text(), terminator: "")
    exit(0)
}
GStreamer.initialize()
exit(commandLine.demo ? Demo.run(commandLine) : AnswerCommand.run(commandLine))
