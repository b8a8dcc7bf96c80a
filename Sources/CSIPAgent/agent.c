/* The SIP agent over sofia-sip's nua, on one GMainContext (c1nk_sip_agent.h), as the agent library. */
#include "c1nk_sip_agent_library.h"

#include <gio/gio.h>
#include <string.h>

struct C1nkSIPAgent;
struct C1nkSIPCall;
#define SU_ROOT_MAGIC_T struct C1nkSIPAgent
#define NUA_MAGIC_T struct C1nkSIPAgent
#define NUA_HMAGIC_T struct C1nkSIPCall

#include <sofia-sip/su_glib.h>
#include <sofia-sip/nua.h>
#include <sofia-sip/nua_tag.h>
#include <sofia-sip/sip_header.h>
#include <sofia-sip/sip_status.h>
#include <sofia-sip/url.h>
#include <sofia-sip/su_log.h>

typedef struct C1nkSIPCall {
    guint id;
    nua_handle_t *handle;
    gboolean answered;
    gboolean ending;   /* hang-up asked: a late 200 is answered with BYE */
    gboolean challenged;   /* credentials sent once for this INVITE */
    gchar *offer;          /* our SDP, answered again to a re-INVITE */
} C1nkSIPCall;

struct C1nkSIPAgent {
    su_root_t *root;
    nua_t *nua;
    GMainContext *context;
    C1nkSIPEventFunc callback;
    gpointer user;
    GHashTable *calls;      /* id → C1nkSIPCall (owned) */
    guint next_id;
    gboolean stopping;
    gboolean stopped;
    gchar *auth_user;
    gchar *auth_password;
    nua_handle_t *registration;
    gboolean registration_challenged;
    gboolean registered;
};

static void
call_free (gpointer data)
{
    C1nkSIPCall *call = data;
    g_free (call->offer);
    g_free (call);
}

static void
emit (C1nkSIPAgent *agent, guint call, C1nkSIPEvent event, gint status, const gchar *text,
      const gchar *body, gsize length)
{
    if (length > C1NK_SIP_LARGEST_BODY) { body = NULL; length = 0; }
    agent->callback (agent->user, call, event, status, text, body, length);
}

/* The payload as a NUL-terminated copy (sofia's is not terminated), or NULL. */
static gchar *
payload_copy (sip_t const *sip, gsize *length)
{
    *length = 0;
    if (sip == NULL || sip->sip_payload == NULL || sip->sip_payload->pl_data == NULL) return NULL;
    gsize n = sip->sip_payload->pl_len;
    if (n > C1NK_SIP_LARGEST_BODY) { *length = n; return NULL; }
    *length = n;
    return g_strndup (sip->sip_payload->pl_data, n);
}

/* Answers a 401/407 with our credentials, once: TRUE when it did (the stack resends the request). */
static gboolean
authenticate (C1nkSIPAgent *agent, nua_handle_t *handle, int status, sip_t const *sip, gboolean *challenged)
{
    if ((status != 401 && status != 407) || agent->auth_user == NULL || *challenged || sip == NULL) return FALSE;
    msg_auth_t const *challenge = status == 401 ? (msg_auth_t const *) sip->sip_www_authenticate
                                                : (msg_auth_t const *) sip->sip_proxy_authenticate;
    if (challenge == NULL || challenge->au_scheme == NULL) return FALSE;
    char const *realm = msg_params_find (challenge->au_params, "realm=");
    if (realm == NULL) return FALSE;
    /* sofia's form: scheme:"realm":user:password (the realm keeps its quotes). */
    gchar *credentials = realm[0] == '"'
        ? g_strdup_printf ("%s:%s:%s:%s", challenge->au_scheme, realm, agent->auth_user, agent->auth_password)
        : g_strdup_printf ("%s:\"%s\":%s:%s", challenge->au_scheme, realm, agent->auth_user, agent->auth_password);
    *challenged = TRUE;
    nua_authenticate (handle, NUTAG_AUTH (credentials), TAG_END ());
    memset (credentials, 0, strlen (credentials));
    g_free (credentials);
    return TRUE;
}

static gboolean
emit_stopped (gpointer data)
{
    C1nkSIPAgent *agent = data;
    emit (agent, 0, C1NK_SIP_EVENT_STOPPED, 200, NULL, NULL, 0);
    return G_SOURCE_REMOVE;
}

static void
forget (C1nkSIPAgent *agent, C1nkSIPCall *call)
{
    nua_handle_bind (call->handle, NULL);
    nua_handle_destroy (call->handle);
    g_hash_table_remove (agent->calls, GUINT_TO_POINTER (call->id));
}

static void
on_event (nua_event_t event, int status, char const *phrase, nua_t *nua, C1nkSIPAgent *agent,
          nua_handle_t *handle, C1nkSIPCall *call, sip_t const *sip, tagi_t tags[])
{
    (void) nua;
    switch (event) {
    case nua_i_invite:
        if (call != NULL) {
            /* A re-INVITE in an answered call: the media stays as first agreed. */
            nua_respond (handle, SIP_200_OK, NUTAG_WITH_THIS (agent->nua),
                         SIPTAG_CONTENT_TYPE_STR ("application/sdp"), SIPTAG_PAYLOAD_STR (call->offer), TAG_END ());
            emit (agent, call->id, C1NK_SIP_EVENT_REINVITE, 200, NULL, NULL, 0);
        } else {
            /* The bridge places calls and takes none. */
            gchar *from = (sip && sip->sip_from) ? url_as_string (NULL, sip->sip_from->a_url) : NULL;
            nua_respond (handle, SIP_403_FORBIDDEN, NUTAG_WITH_THIS (agent->nua), TAG_END ());
            emit (agent, 0, C1NK_SIP_EVENT_REFUSED, 403, from, NULL, 0);
            free (from);
        }
        break;
    case nua_r_invite:
        if (call == NULL) break;
        if (authenticate (agent, handle, status, sip, &call->challenged)) break;
        if (status < 200) {
            emit (agent, call->id, C1NK_SIP_EVENT_PROGRESS, status, phrase, NULL, 0);
        } else if (status < 300) {
            call->answered = TRUE;
            if (call->ending) { nua_bye (handle, TAG_END ()); break; }
            gsize length;
            gchar *body = payload_copy (sip, &length);
            emit (agent, call->id, C1NK_SIP_EVENT_ANSWERED, status, phrase, body, length);
            g_free (body);
        } else {
            emit (agent, call->id, C1NK_SIP_EVENT_FAILED, status, phrase, NULL, 0);
        }
        break;
    case nua_i_bye:
        if (call != NULL) emit (agent, call->id, C1NK_SIP_EVENT_BYE, status, phrase, NULL, 0);
        break;
    case nua_i_info:
        if (call != NULL) {
            gsize length;
            gchar *body = payload_copy (sip, &length);
            const gchar *type = (sip && sip->sip_content_type) ? sip->sip_content_type->c_type : NULL;
            emit (agent, call->id, C1NK_SIP_EVENT_INFO, status, type, body, length);
            g_free (body);
        }
        break;
    case nua_i_state: {
        int state = nua_callstate_init;
        tl_gets (tags, NUTAG_CALLSTATE_REF (state), TAG_END ());
        if (state != nua_callstate_terminated) break;
        if (call == NULL) {
            if (handle != agent->registration) nua_handle_destroy (handle);
            break;
        }
        guint id = call->id;
        forget (agent, call);
        emit (agent, id, C1NK_SIP_EVENT_ENDED, status, phrase, NULL, 0);
        break;
    }
    case nua_r_register:
        if (handle != agent->registration || status < 200) break;
        if (authenticate (agent, handle, status, sip, &agent->registration_challenged)) break;
        agent->registered = status < 300;
        if (status < 300) {
            agent->registration_challenged = FALSE;   /* a refresh may be challenged afresh */
            emit (agent, 0, C1NK_SIP_EVENT_REGISTERED, status, phrase, NULL, 0);
        } else {
            emit (agent, 0, C1NK_SIP_EVENT_REGISTRATION_FAILED, status, phrase, NULL, 0);
        }
        break;
    case nua_r_unregister:
        /* The un-REGISTER of the shutdown, challenged in its turn. */
        if (handle == agent->registration && status >= 200)
            authenticate (agent, handle, status, sip, &agent->registration_challenged);
        break;
    case nua_r_shutdown:
        if (status >= 200 && !agent->stopped) {
            agent->stopped = TRUE;
            /* Outside sofia's dispatch, so the agent may be freed from the callback. */
            GSource *idle = g_idle_source_new ();
            g_source_set_callback (idle, emit_stopped, agent, NULL);
            g_source_attach (idle, agent->context);
            g_source_unref (idle);
        }
        break;
    default:
        break;
    }
}

/* sofia's own log (every module falls back to the default one) as GLib debug
 * messages of the domain "sofia-sip": silent unless G_MESSAGES_DEBUG asks. */
static void c1nk_sip_agent_free (C1nkSIPAgent *agent);

static void
sofia_log (void *stream, char const *format, va_list arguments)
{
    (void) stream;
    g_logv ("sofia-sip", G_LOG_LEVEL_DEBUG, format, arguments);
}

static C1nkSIPAgent *
c1nk_sip_agent_new (const gchar *bind_url, const gchar *from, GMainContext *context,
                    C1nkSIPEventFunc callback, gpointer user, GError **error)
{
    static gsize initialised = 0;
    if (g_once_init_enter (&initialised)) {
        su_init ();
        su_log_redirect (NULL, sofia_log, NULL);
        g_once_init_leave (&initialised, 1);
    }

    C1nkSIPAgent *agent = g_new0 (C1nkSIPAgent, 1);
    agent->context = g_main_context_ref (context);
    agent->callback = callback;
    agent->user = user;
    agent->calls = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, call_free);
    agent->next_id = 1;
    agent->root = su_glib_root_create (agent);
    if (agent->root == NULL) {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "sofia-sip could not create its main-loop source");
        c1nk_sip_agent_free (agent);
        return NULL;
    }
    /* The stack shares this root's GSource instead of a thread of its own. */
    su_root_threading (agent->root, 0);
    g_source_attach (su_glib_root_gsource (agent->root), context);
    agent->nua = nua_create (agent->root, on_event, agent,
                             NUTAG_URL (bind_url),
                             SIPTAG_FROM_STR (from),
                             NUTAG_MEDIA_ENABLE (0),
                             NUTAG_AUTOACK (1),
                             NUTAG_ALLOW ("INVITE, ACK, BYE, CANCEL, INFO, OPTIONS"),
                             NUTAG_USER_AGENT ("c1nk-gst"),
                             TAG_END ());
    if (agent->nua == NULL) {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_ADDRESS_IN_USE,
                     "cannot listen for SIP on %s (in use, or not an address of this machine)", bind_url);
        c1nk_sip_agent_free (agent);
        return NULL;
    }
    return agent;
}

static guint
c1nk_sip_agent_invite (C1nkSIPAgent *agent, const gchar *to, const gchar *sdp)
{
    if (agent->nua == NULL || agent->stopping) return 0;
    url_t *url = url_make (NULL, to);
    gboolean usable = url != NULL && (url->url_type == url_sip || url->url_type == url_sips) && url->url_host != NULL;
    free (url);
    if (!usable) return 0;

    C1nkSIPCall *call = g_new0 (C1nkSIPCall, 1);
    call->id = agent->next_id++;
    call->offer = g_strdup (sdp);
    if (agent->next_id == 0) agent->next_id = 1;
    call->handle = nua_handle (agent->nua, call, SIPTAG_TO_STR (to), TAG_END ());
    if (call->handle == NULL) { g_free (call->offer); g_free (call); return 0; }
    g_hash_table_insert (agent->calls, GUINT_TO_POINTER (call->id), call);
    nua_invite (call->handle,
                SIPTAG_CONTENT_TYPE_STR ("application/sdp"),
                SIPTAG_PAYLOAD_STR (sdp),
                TAG_END ());
    return call->id;
}

static void
c1nk_sip_agent_set_credentials (C1nkSIPAgent *agent, const gchar *user, const gchar *password)
{
    if (agent->auth_password) memset (agent->auth_password, 0, strlen (agent->auth_password));
    g_free (agent->auth_user);
    g_free (agent->auth_password);
    agent->auth_user = g_strdup (user);
    agent->auth_password = g_strdup (password ? password : "");
}

static gboolean
c1nk_sip_agent_register (C1nkSIPAgent *agent, const gchar *registrar, const gchar *aor, guint expires)
{
    if (agent->nua == NULL || agent->stopping) return FALSE;
    url_t *url = url_make (NULL, registrar);
    gboolean usable = url != NULL && (url->url_type == url_sip || url->url_type == url_sips) && url->url_host != NULL;
    free (url);
    if (!usable) return FALSE;
    if (agent->registration != NULL) {
        /* Again (after a failure): a fresh handle, so no old dialog or credentials linger. */
        nua_handle_destroy (agent->registration);
    }
    agent->registration_challenged = FALSE;
    agent->registered = FALSE;
    agent->registration = nua_handle (agent->nua, NULL, SIPTAG_TO_STR (aor), SIPTAG_FROM_STR (aor), TAG_END ());
    if (agent->registration == NULL) return FALSE;
    gchar *seconds = g_strdup_printf ("%u", expires);
    nua_register (agent->registration, NUTAG_REGISTRAR (URL_STRING_MAKE (registrar)),
                  SIPTAG_EXPIRES_STR (seconds), TAG_END ());
    g_free (seconds);
    return TRUE;
}

static void
c1nk_sip_agent_hang_up (C1nkSIPAgent *agent, guint id)
{
    C1nkSIPCall *call = g_hash_table_lookup (agent->calls, GUINT_TO_POINTER (id));
    if (call == NULL || call->ending) return;
    call->ending = TRUE;
    if (call->answered) nua_bye (call->handle, TAG_END ());
    else nua_cancel (call->handle, TAG_END ());
}

static void
c1nk_sip_agent_stop (C1nkSIPAgent *agent)
{
    if (agent->nua == NULL || agent->stopping) return;
    agent->stopping = TRUE;
    /* A registration that failed has nothing to take back, and sofia's shutdown would
     * wait on its un-REGISTER being refused. */
    if (agent->registration != NULL && !agent->registered) {
        nua_handle_destroy (agent->registration);
        agent->registration = NULL;
    }
    /* nua_shutdown ends each call itself (BYE or CANCEL) and un-REGISTERs before it answers. */
    nua_shutdown (agent->nua);
}

static void
c1nk_sip_agent_free (C1nkSIPAgent *agent)
{
    if (agent == NULL) return;
    if (agent->nua != NULL) {
        if (!agent->stopped) {
            c1nk_sip_agent_stop (agent);
            /* Bounded: a stack that cannot say goodbye in 5 s is destroyed anyway. */
            gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
            while (!agent->stopped && g_get_monotonic_time () < deadline)
                if (!g_main_context_iteration (agent->context, FALSE)) g_usleep (10000);
        }
        GSource *source = su_glib_root_gsource (agent->root);
        /* nua_destroy iterates the root's source again while it waits for the stack. */
        g_source_set_can_recurse (source, TRUE);
        nua_destroy (agent->nua);
        agent->nua = NULL;
    }
    if (agent->root != NULL) {
        g_source_destroy (su_glib_root_gsource (agent->root));
        su_root_destroy (agent->root);
    }
    g_hash_table_unref (agent->calls);
    if (agent->auth_password) memset (agent->auth_password, 0, strlen (agent->auth_password));
    g_free (agent->auth_user);
    g_free (agent->auth_password);
    if (agent->context) g_main_context_unref (agent->context);
    g_free (agent);
}

static const C1nkSIPAgentInterface functions = {
    .abi = C1NK_SIP_AGENT_ABI,
    .new_agent = c1nk_sip_agent_new,
    .invite = c1nk_sip_agent_invite,
    .set_credentials = c1nk_sip_agent_set_credentials,
    .register_at = c1nk_sip_agent_register,
    .hang_up = c1nk_sip_agent_hang_up,
    .stop = c1nk_sip_agent_stop,
    .free_agent = c1nk_sip_agent_free,
};

const C1nkSIPAgentInterface *
c1nk_sip_agent_interface (void)
{
    return &functions;
}
