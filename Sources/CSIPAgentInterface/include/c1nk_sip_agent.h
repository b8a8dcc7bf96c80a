#ifndef C1NK_SIP_AGENT_H
#define C1NK_SIP_AGENT_H

#include <glib.h>

G_BEGIN_DECLS

/* A SIP user agent (sofia-sip's nua) that places calls and takes none.
 *
 * The stack runs on one GMainContext: its sockets and timers are a GSource
 * there (su_glib), with sofia's threading off, so every callback below comes
 * from that context's dispatch and no thread is started. Signalling only:
 * the SDP is the caller's text, sent and handed back as it is (capped at
 * C1NK_SIP_LARGEST_BODY bytes); media stays outside. Incoming INVITEs are
 * refused with 403 (the agent rings phones, it is never rung). */
typedef struct C1nkSIPAgent C1nkSIPAgent;

#define C1NK_SIP_LARGEST_BODY 16384

typedef enum {
    C1NK_SIP_EVENT_PROGRESS = 1,   /* a 1xx to our INVITE (status: 180, 183, …) */
    C1NK_SIP_EVENT_ANSWERED = 2,   /* a 2xx to our INVITE; body: the answer's SDP (ACK already sent) */
    C1NK_SIP_EVENT_FAILED = 3,     /* a final 3xx–6xx to our INVITE, or a local failure (status 900+) */
    C1NK_SIP_EVENT_BYE = 4,        /* the phone hung up (BYE received, answered 200) */
    C1NK_SIP_EVENT_ENDED = 5,      /* the call is over on both sides; the call id is not used again */
    C1NK_SIP_EVENT_INFO = 6,       /* an INFO in the call; text: its content type, body: its body */
    C1NK_SIP_EVENT_REFUSED = 7,    /* an INVITE from outside, answered 403; text: its From (call 0) */
    C1NK_SIP_EVENT_STOPPED = 8,    /* the agent has shut down; free it now (call 0) */
    C1NK_SIP_EVENT_REGISTERED = 9, /* the registrar took us (call 0); the stack refreshes it before it expires */
    C1NK_SIP_EVENT_REGISTRATION_FAILED = 10, /* a final failure to REGISTER, or of a refresh (call 0);
                                              * 401/407 after our credentials were sent: they are wrong */
    C1NK_SIP_EVENT_REINVITE = 11,  /* the phone re-INVITEd an answered call (a refresh, a hold); answered 200
                                    * with our first offer: the media is not changed */
} C1nkSIPEvent;

/* `text` and `body` are valid during the call only (NULL when absent). */
typedef void (*C1nkSIPEventFunc) (gpointer user, guint call, C1nkSIPEvent event, gint status,
                                  const gchar *text, const gchar *body, gsize body_length);

/* The agent's functions, from the agent library (libc1nksipagent.so), which links sofia-sip.
 * It is loaded at run time, and only when SIP is configured, with RTLD_LOCAL: sofia-sip exports
 * STUN functions under the same names as libnice's (stun_message_length, …), and linked into the
 * process its copies would be found first by libnice, whose ICE (every webrtcbin call) would then fail.
 * Kept apart, each library binds its own. */
typedef struct {
    guint abi;   /* C1NK_SIP_AGENT_ABI */

    /* An agent listening on `bind_url` ("sip:127.0.0.1:5060;transport=udp"), saying `from`
     * ("sip:door@127.0.0.1") in its requests, attached to `context`. NULL when the
     * address cannot be bound (`error` set). */
    C1nkSIPAgent *(*new_agent) (const gchar *bind_url, const gchar *from, GMainContext *context,
                                C1nkSIPEventFunc callback, gpointer user, GError **error);

    /* Sends an INVITE to `to` with `sdp` as its offer. The call's id (never 0), or 0 when
     * `to` is not a SIP URI sofia can use. */
    guint (*invite) (C1nkSIPAgent *agent, const gchar *to, const gchar *sdp);

    /* The user and password answering any digest challenge (401/407) to a REGISTER or an
     * INVITE, once per request: a second challenge means the credentials are wrong. */
    void (*set_credentials) (C1nkSIPAgent *agent, const gchar *user, const gchar *password);

    /* Registers `aor` ("sip:door@fritz.box") at `registrar` ("sip:fritz.box") for `expires`
     * seconds, refreshed by the stack. FALSE when the registrar is not a SIP URI. */
    gboolean (*register_at) (C1nkSIPAgent *agent, const gchar *registrar, const gchar *aor, guint expires);

    /* Ends the call: CANCEL before it is answered, BYE after. ENDED follows. */
    void (*hang_up) (C1nkSIPAgent *agent, guint call);

    /* Ends every call and shuts the stack down; STOPPED follows, after which
     * free_agent is the only call left. */
    void (*stop) (C1nkSIPAgent *agent);

    /* Frees a STOPPED agent (or one whose stop was never needed: no call placed). */
    void (*free_agent) (C1nkSIPAgent *agent);
} C1nkSIPAgentInterface;

/* Changes whenever the struct above does: a library of another build is refused. */
#define C1NK_SIP_AGENT_ABI 1

/* The one symbol the agent library exports. */
#define C1NK_SIP_AGENT_INTERFACE_SYMBOL "c1nk_sip_agent_interface"

/* The library's file name, looked for beside the running executable, then in ../lib/c1nk-gst/
 * from it (the Debian package); $C1NK_SIP_AGENT_LIBRARY, a path, replaces both. */
#define C1NK_SIP_AGENT_LIBRARY_NAME "libc1nksipagent.so"

/* Loads the agent library once per process and returns its functions; NULL with `error`
 * saying what is missing (the library, or sofia-sip under it) and what to install. */
const C1nkSIPAgentInterface *c1nk_sip_agent_load (GError **error);

/* Where the loaded library is (NULL before a successful load). */
const gchar *c1nk_sip_agent_loaded_path (void);

G_END_DECLS

#endif
