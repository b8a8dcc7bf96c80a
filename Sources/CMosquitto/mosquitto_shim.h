/* libmosquitto (Debian: libmosquitto-dev), for C1nkMQTT alone; OpenSSL (libssl-dev) for its TLS context. */
#ifndef C1NK_MOSQUITTO_SHIM_H
#define C1NK_MOSQUITTO_SHIM_H
#include <stdbool.h>
#include <mosquitto.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

/* TLS to a broker that is connected to by address (its name looked up
 * beforehand, off the main loop) while its certificate is still checked
 * against its name: OpenSSL checks the name during the handshake (the
 * context's verify parameter), and libmosquitto's own check, which would
 * compare the address, is turned off. Call after mosquitto_tls_set.
 * MOSQ_ERR_SUCCESS or another MOSQ_ERR_*. */
static inline int c1nk_mosquitto_tls_check_name(struct mosquitto *mosq, const char *name) {
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (ctx == NULL) return MOSQ_ERR_TLS;
    X509_VERIFY_PARAM *param = SSL_CTX_get0_param(ctx);
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    int rc = X509_VERIFY_PARAM_set1_host(param, name, 0) == 1 ? MOSQ_ERR_SUCCESS : MOSQ_ERR_TLS;
    /* libmosquitto takes a reference of its own; with its defaults it still loads the CAs and verifies the chain. */
    if (rc == MOSQ_ERR_SUCCESS) rc = mosquitto_opts_set(mosq, MOSQ_OPT_SSL_CTX, ctx);
    if (rc == MOSQ_ERR_SUCCESS) rc = mosquitto_int_option(mosq, MOSQ_OPT_SSL_CTX_WITH_DEFAULTS, 1);
    if (rc == MOSQ_ERR_SUCCESS) rc = mosquitto_tls_insecure_set(mosq, true);
    SSL_CTX_free(ctx);
    return rc;
}
#endif
