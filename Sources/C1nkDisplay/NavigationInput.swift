import CGStreamer

/// A click, touch or key that a sink reported as a GstNavigation event, in
/// display pixels.
public enum NavigationInput: Equatable, Sendable {
    case press(x: Double, y: Double)
    case key(String)

    /// Reads a navigation event; nil for moves, releases and the rest.
    init?(event: UnsafeMutablePointer<GstEvent>) {
        switch gst_navigation_event_get_type(event) {
        case GST_NAVIGATION_EVENT_MOUSE_BUTTON_PRESS:
            var button: Int32 = 0
            var x = 0.0, y = 0.0
            guard gst_navigation_event_parse_mouse_button_event(event, &button, &x, &y) != 0 else { return nil }
            self = .press(x: x, y: y)
        case GST_NAVIGATION_EVENT_TOUCH_DOWN:
            var identifier: guint = 0
            var x = 0.0, y = 0.0, pressure = 0.0
            guard gst_navigation_event_parse_touch_event(event, &identifier, &x, &y, &pressure) != 0 else { return nil }
            self = .press(x: x, y: y)
        case GST_NAVIGATION_EVENT_KEY_PRESS:
            var key: UnsafePointer<gchar>?
            guard gst_navigation_event_parse_key_event(event, &key) != 0, let key else { return nil }
            self = .key(String(cString: key))
        default:
            return nil
        }
    }
}
