/* Finding and loading the SIP agent library (c1nk_sip_agent.h says why it is loaded apart). */
#include "c1nk_sip_agent.h"

#include <dlfcn.h>
#include <gio/gio.h>

static GMutex lock;
static const C1nkSIPAgentInterface *loaded;
static gchar *loaded_path;

/* Candidate paths, most specific first; NULL-terminated, free with g_strfreev. */
static gchar **
candidates (void)
{
    GPtrArray *paths = g_ptr_array_new ();
    const gchar *given = g_getenv ("C1NK_SIP_AGENT_LIBRARY");
    if (given != NULL && *given != '\0') {
        /* Given: that library and no other. */
        g_ptr_array_add (paths, g_strdup (given));
        g_ptr_array_add (paths, NULL);
        return (gchar **) g_ptr_array_free (paths, FALSE);
    }
    gchar *executable = g_file_read_link ("/proc/self/exe", NULL);
    if (executable != NULL) {
        gchar *folder = g_path_get_dirname (executable);
        g_ptr_array_add (paths, g_build_filename (folder, C1NK_SIP_AGENT_LIBRARY_NAME, NULL));
        /* Said in messages as /usr/lib/c1nk-gst/…, not /usr/bin/../lib/…. */
        gchar *installed = g_build_filename (folder, "..", "lib", "c1nk-gst", C1NK_SIP_AGENT_LIBRARY_NAME, NULL);
        g_ptr_array_add (paths, g_canonicalize_filename (installed, NULL));
        g_free (installed);
        g_free (folder);
        g_free (executable);
    }
    g_ptr_array_add (paths, NULL);
    return (gchar **) g_ptr_array_free (paths, FALSE);
}

const C1nkSIPAgentInterface *
c1nk_sip_agent_load (GError **error)
{
    g_mutex_lock (&lock);
    if (loaded != NULL) {
        g_mutex_unlock (&lock);
        return loaded;
    }
    gchar **paths = candidates ();
    GString *tried = g_string_new (NULL);
    for (gchar **path = paths; *path != NULL && loaded == NULL; path++) {
        if (!g_file_test (*path, G_FILE_TEST_EXISTS)) {
            g_string_append_printf (tried, "%s%s (absent)", tried->len ? ", " : "", *path);
            continue;
        }
        /* RTLD_LOCAL: none of sofia-sip's symbols join the process's global scope. */
        void *library = dlopen (*path, RTLD_NOW | RTLD_LOCAL);
        if (library == NULL) {
            /* Present but unloadable: most often sofia-sip itself is missing. */
            const gchar *reason = dlerror ();
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                         "the SIP agent library %s does not load: %s; install libsofia-sip-ua-glib3 "
                         "(apt install libsofia-sip-ua-glib3)", *path, reason ? reason : "unknown reason");
            g_strfreev (paths);
            g_string_free (tried, TRUE);
            g_mutex_unlock (&lock);
            return NULL;
        }
        const C1nkSIPAgentInterface *(*interface) (void) =
            (const C1nkSIPAgentInterface *(*) (void)) dlsym (library, C1NK_SIP_AGENT_INTERFACE_SYMBOL);
        const C1nkSIPAgentInterface *functions = interface ? interface () : NULL;
        if (functions == NULL || functions->abi != C1NK_SIP_AGENT_ABI) {
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                         "%s is not this build's SIP agent library (interface %u, expected %u); reinstall c1nk-gst",
                         *path, functions ? functions->abi : 0, C1NK_SIP_AGENT_ABI);
            dlclose (library);
            g_strfreev (paths);
            g_string_free (tried, TRUE);
            g_mutex_unlock (&lock);
            return NULL;
        }
        /* Never closed: sofia-sip keeps threads' keys and atexit work of its own. */
        loaded = functions;
        loaded_path = g_strdup (*path);
    }
    if (loaded == NULL)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                     "the SIP agent library " C1NK_SIP_AGENT_LIBRARY_NAME " is not installed (looked at %s); "
                     "reinstall c1nk-gst, or build it with `swift build`", tried->str);
    g_strfreev (paths);
    g_string_free (tried, TRUE);
    const C1nkSIPAgentInterface *result = loaded;
    g_mutex_unlock (&lock);
    return result;
}

const gchar *
c1nk_sip_agent_loaded_path (void)
{
    g_mutex_lock (&lock);
    const gchar *path = loaded_path;
    g_mutex_unlock (&lock);
    return path;
}
