/// The SIPp scenarios the SIP tests run (`SIPp`).
enum SIPpScenario {
    /// Sent to the bridge: a datagram that is not SIP, a 200 OK for a call the bridge
    /// never placed, an INVITE without Via or CSeq, and an INVITE from outside, which
    /// must be answered 403 (then ACKed).
    /// `[branch-3]` in the ACK: the INVITE's branch, three scenario steps back (a 403 is ACKed in its transaction).
    static let badInput = """
    <?xml version="1.0" encoding="ISO-8859-1" ?>
    <scenario name="c1nk bridge bad input">
      <send><![CDATA[

    this is not SIP at all [call_id]
    ]]></send>
      <send><![CDATA[

    SIP/2.0 200 OK
    Via: SIP/2.0/[transport] [remote_ip]:[remote_port];branch=z9hG4bKnever[call_number]
    From: <sip:door@[remote_ip]>;tag=never
    To: <sip:phone@[local_ip]>;tag=stray
    Call-ID: never-placed-[call_id]
    CSeq: 1 INVITE
    Contact: <sip:phone@[local_ip]:[local_port]>
    Content-Length: 0

    ]]></send>
      <send><![CDATA[

    INVITE sip:door@[remote_ip]:[remote_port] SIP/2.0
    From: <sip:broken@[local_ip]>;tag=b[call_number]
    To: <sip:door@[remote_ip]:[remote_port]>
    Call-ID: broken-[call_id]
    Content-Length: 0

    ]]></send>
      <send retrans="500"><![CDATA[

    INVITE sip:door@[remote_ip]:[remote_port] SIP/2.0
    Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
    From: <sip:intruder@[local_ip]:[local_port]>;tag=[pid]t[call_number]
    To: <sip:door@[remote_ip]:[remote_port]>
    Call-ID: [call_id]
    CSeq: 1 INVITE
    Contact: <sip:intruder@[local_ip]:[local_port]>
    Max-Forwards: 70
    Content-Type: application/sdp
    Content-Length: [len]

    v=0
    o=- 1 1 IN IP4 [local_ip]
    s=-
    c=IN IP4 [local_ip]
    t=0 0
    m=audio [media_port] RTP/AVP 0
    ]]></send>
      <recv response="100" optional="true"/>
      <recv response="403"/>
      <send><![CDATA[

    ACK sip:door@[remote_ip]:[remote_port] SIP/2.0
    Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch-3]
    From: <sip:intruder@[local_ip]:[local_port]>;tag=[pid]t[call_number]
    To: <sip:door@[remote_ip]:[remote_port]>[peer_tag_param]
    Call-ID: [call_id]
    CSeq: 1 ACK
    Max-Forwards: 70
    Content-Length: 0

    ]]></send>
    </scenario>
    """


    /// A video phone that answers after `delay` ms (the door's video has started by then): PCMU,
    /// and VP8 to `videoPort`, where the test decodes it; then takes the BYE that follows.
    static func videoPhone(videoPort: Int, delay: Int) -> String {
        """
        <?xml version="1.0" encoding="ISO-8859-1" ?>
        <scenario name="a video phone">
          <recv request="INVITE"/>
          <pause milliseconds="\(delay)"/>
        \(answer(media: """
        m=audio [media_port] RTP/AVP 0
        a=rtpmap:0 PCMU/8000
        m=video \(videoPort) RTP/AVP 96
        a=rtpmap:96 VP8/90000
        a=recvonly
        """))
          <recv request="ACK"/>
        \(takesTheBye)
        </scenario>
        """
    }

    /// A phone that answers with G.729 alone (none of our codecs), then takes the BYE that follows.
    static let answersWithoutOurCodecs = """
    <?xml version="1.0" encoding="ISO-8859-1" ?>
    <scenario name="a phone answering G.729 only">
      <recv request="INVITE"/>
    \(answer(media: """
    m=audio [media_port] RTP/AVP 18
    a=rtpmap:18 G729/8000
    """))
      <recv request="ACK"/>
    \(takesTheBye)
    </scenario>
    """

    /// A phone that answers with PCMU, then re-INVITEs the call (as a session refresh or a
    /// hold does), expects 200 with SDP and ACKs it, then takes the BYE that follows.
    /// `[$1]`: the bridge's From (its tag too), the To of the phone's requests.
    static let answersThenReinvites = """
    <?xml version="1.0" encoding="ISO-8859-1" ?>
    <scenario name="a phone re-INVITing">
      <recv request="INVITE" rrs="true">
        <action>
          <ereg regexp=".*" search_in="hdr" header="From:" check_it="true" assign_to="1"/>
        </action>
      </recv>
    \(answer(media: "m=audio [media_port] RTP/AVP 0"))
      <recv request="ACK"/>
      <send retrans="500"><![CDATA[

    INVITE [next_url] SIP/2.0
    Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
    From: <sip:phone@[local_ip]:[local_port]>;tag=[pid]p[call_number]
    To: [$1]
    Call-ID: [call_id]
    CSeq: 2 INVITE
    Contact: <sip:phone@[local_ip]:[local_port];transport=[transport]>
    Max-Forwards: 70
    Content-Type: application/sdp
    Content-Length: [len]

    v=0
    o=- 1 2 IN IP4 [local_ip]
    s=-
    c=IN IP4 [local_ip]
    t=0 0
    m=audio [media_port] RTP/AVP 0
    a=sendonly
    ]]></send>
      <recv response="100" optional="true"/>
      <recv response="200" rtd="true"/>
      <send><![CDATA[

    ACK [next_url] SIP/2.0
    Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
    From: <sip:phone@[local_ip]:[local_port]>;tag=[pid]p[call_number]
    To: [$1]
    Call-ID: [call_id]
    CSeq: 2 ACK
    Contact: <sip:phone@[local_ip]:[local_port];transport=[transport]>
    Max-Forwards: 70
    Content-Length: 0

    ]]></send>
    \(takesTheBye)
    </scenario>
    """

    /// The phone's 200 OK to the INVITE (its tag added to the To), with an SDP of `media` lines.
    static func answer(media: String) -> String {
        """
          <send><![CDATA[

        SIP/2.0 200 OK
        [last_Via:]
        [last_From:]
        [last_To:];tag=[pid]p[call_number]
        [last_Call-ID:]
        [last_CSeq:]
        Contact: <sip:phone@[local_ip]:[local_port];transport=[transport]>
        Content-Type: application/sdp
        Content-Length: [len]

        v=0
        o=- 1 1 IN IP4 [local_ip]
        s=-
        c=IN IP4 [local_ip]
        t=0 0
        \(media)
        ]]></send>
        """
    }

    /// The BYE that ends the call, taken with a 200 OK.
    static let takesTheBye = """
      <recv request="BYE"/>
      <send><![CDATA[

    SIP/2.0 200 OK
    [last_Via:]
    [last_From:]
    [last_To:]
    [last_Call-ID:]
    [last_CSeq:]
    Content-Length: 0

    ]]></send>
    """
}
