import XCTest
@testable import C1nkGLib
@testable import C1nkPipeline

/// A pipeline's lifecycle owned once, and the walks over its links, on
/// pipelines of a few fake elements that end at once.
final class OwnedPipelineTests: XCTestCase {
    func testALaunchedPipelineRunsToItsEndAndReleasesOnce() throws {
        let owned = try OwnedPipeline(launching: "fakesrc num-buffers=3 ! fakesink name=out", name: "short")
        XCTAssertEqual(owned.pipeline.name, "short")
        XCTAssertTrue(owned.start())
        XCTAssertEqual(owned.waitForEnd(seconds: 5), .endOfStream)
        owned.release()
        XCTAssertTrue(owned.isReleased)
        XCTAssertFalse(owned.start(), "a released pipeline is not touched")
        owned.release() // once only: nothing happens
    }

    func testTextThatDoesNotParseIsABadDescription() {
        XCTAssertThrowsError(try OwnedPipeline(launching: "fakesrc ! no-such-element-here", name: "bad")) { error in
            guard case MediaError.badDescription(let text, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(text, "fakesrc ! no-such-element-here")
        }
    }

    func testEndMessagesAreTakenOffTheBus() throws {
        let owned = try OwnedPipeline(launching: "fakesrc num-buffers=1 ! fakesink", name: "ends")
        XCTAssertFalse(owned.takeEndMessages(), "nothing ended before it ran")
        owned.start()
        XCTAssertEqual(owned.waitForEnd(seconds: 5), .endOfStream)
        XCTAssertFalse(owned.takeEndMessages(), "the end was taken by waitForEnd")
    }

    func testLinksAreWalkedBothWays() throws {
        let owned = try OwnedPipeline(launching: "fakesrc name=a ! identity name=b ! tee name=t ! queue name=c ! fakesink name=d"
                                      + " t. ! queue name=e ! fakesink name=f", name: "walk")
        let pipeline = owned.pipeline
        let b = try XCTUnwrap(pipeline.element(named: "b"))
        XCTAssertEqual(Set(PipelineLinks.downstream(of: b).map(\.name)), ["t", "c", "d", "e", "f"])
        XCTAssertEqual(PipelineLinks.downstream(of: b, stoppingAt: ["t"]).map(\.name), ["t"])
        let d = try XCTUnwrap(pipeline.element(named: "d"))
        XCTAssertEqual(PipelineLinks.upstream(of: d).map(\.name), ["c", "t", "b", "a"])
        XCTAssertEqual(PipelineLinks.sources(PipelineLinks.upstream(of: d)).map(\.name), ["a"])
        XCTAssertEqual(Set(PipelineLinks.elements(of: pipeline, factory: "queue").map(\.name)), ["c", "e"])
        // The sinks fed from the source, through the tee.
        let source = try XCTUnwrap(pipeline.element(named: "a")?.staticPad("src"))
        XCTAssertEqual(Set(DownstreamSinks.from(source).map(\.name)), ["d", "f"])
    }

    func testASinkInsideABinIsFoundThroughItsGhostPad() throws {
        let owned = OwnedPipeline(named: "ghosts")
        let source = try XCTUnwrap(Element.make("fakesrc"))
        let bin = try PipelineBin.parse("identity name=c1nk-out ! queue ! fakesink name=inner", name: "user-sink", input: true)
        owned.pipeline.add(source)
        owned.pipeline.add(bin)
        XCTAssertTrue(source.link(bin))
        XCTAssertEqual(DownstreamSinks.from(try XCTUnwrap(source.staticPad("src"))).map(\.name), ["inner"])
    }

    func testPlaceholdersAreFoundAndFilled() {
        XCTAssertEqual(Placeholders.names(in: "a ! {sink} caps={x,y} ! {audio-sink}"), ["sink", "audio-sink"])
        XCTAssertEqual(Placeholders.fill("{sink} ! {other}", ["sink": "fakesink"]), "fakesink ! {other}")
    }

    func testTheAutomaticElementsChoiceSkipsItsHelpers() {
        XCTAssertEqual(AutoSinkChoice.chosenFactory(among: ["queue", "pulsesink", "capsfilter"]), "pulsesink")
        XCTAssertEqual(AutoSinkChoice.chosenFactory(among: ["capsfilter"]), "capsfilter")
        XCTAssertNil(AutoSinkChoice.chosenFactory(among: []))
    }
}
