import C1nkGLib
import FoundationEssentials
import Glibc

/// The clock and dates of the display, in Slovak, in local time.
enum DisplayClock {
    static let weekdays = ["nedeľa", "pondelok", "utorok", "streda", "štvrtok", "piatok", "sobota"]
    static let months = ["januára", "februára", "marca", "apríla", "mája", "júna", "júla", "augusta",
                         "septembra", "októbra", "novembra", "decembra"]

    private static func parts(_ date: Date) -> tm {
        var seconds = time_t(date.timeIntervalSince1970)
        var result = tm()
        localtime_r(&seconds, &result)
        return result
    }

    /// "14:32".
    static func time(_ date: Date) -> String {
        let p = parts(date)
        return String(printf: "%02d:%02d", p.tm_hour, p.tm_min)
    }

    /// "utorok 1. decembra".
    static func day(_ date: Date) -> String {
        let p = parts(date)
        return "\(weekdays[Int(p.tm_wday)]) \(p.tm_mday). \(months[Int(p.tm_mon)])"
    }

    /// "Dnes 14:32", "Včera 09:11", or "28. 11. 14:32".
    static func dayAndTime(_ date: Date, now: Date) -> String {
        let p = parts(date), today = parts(now), yesterday = parts(now.addingTimeInterval(-86_400))
        let same = { (a: tm, b: tm) in a.tm_year == b.tm_year && a.tm_yday == b.tm_yday }
        if same(p, today) { return "Dnes \(time(date))" }
        if same(p, yesterday) { return "Včera \(time(date))" }
        return "\(p.tm_mday). \(p.tm_mon + 1). \(time(date))"
    }

    /// Seconds until the next minute starts (the clock's next redraw).
    static func secondsToNextMinute(_ date: Date = Date()) -> Double {
        let seconds = date.timeIntervalSince1970
        return 60 - seconds.truncatingRemainder(dividingBy: 60) + 0.05
    }
}
