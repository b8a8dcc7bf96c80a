/* libmosquitto (Debian: libmosquitto-dev), for C1nkMQTT alone; OpenSSL (libssl-dev) for its TLS context. */
#ifndef C1NK_MOSQUITTO_SHIM_H
#define C1NK_MOSQUITTO_SHIM_H
#include <stdbool.h>
#include <mosquitto.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

/* libmosquitto names the address it connects to in the handshake (SNI):
 * name the host the certificate is checked against instead, as the
 * handshake starts, for brokers behind a proxy that routes by name. */
static void c1nk_mosquitto_sni_from_checked_name(const SSL *ssl, int where, int ret) {
    (void)ret;
    if ((where & SSL_CB_HANDSHAKE_START) == 0) return;
    SSL *connection = (SSL *)ssl;
    const char *name = X509_VERIFY_PARAM_get0_host(SSL_get0_param(connection), 0);
    if (name != NULL) SSL_set_tlsext_host_name(connection, name);
}

/* TLS to a broker that is connected to by address (its name looked up
 * beforehand, off the main loop) while its certificate is still checked
 * against its name: OpenSSL checks the name during the handshake (the
 * context's verify parameter), the handshake names it (SNI), and
 * libmosquitto's own check, which would compare the address, is turned off. Call after mosquitto_tls_set.
 * MOSQ_ERR_SUCCESS or another MOSQ_ERR_*. */
static inline int c1nk_mosquitto_tls_check_name(struct mosquitto *mosq, const char *name) {
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (ctx == NULL) return MOSQ_ERR_TLS;
    X509_VERIFY_PARAM *param = SSL_CTX_get0_param(ctx);
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    int rc = X509_VERIFY_PARAM_set1_host(param, name, 0) == 1 ? MOSQ_ERR_SUCCESS : MOSQ_ERR_TLS;
    SSL_CTX_set_info_callback(ctx, c1nk_mosquitto_sni_from_checked_name);
    /* libmosquitto takes a reference of its own; with its defaults it still loads the CAs and verifies the chain. */
    if (rc == MOSQ_ERR_SUCCESS) rc = mosquitto_opts_set(mosq, MOSQ_OPT_SSL_CTX, ctx);
    if (rc == MOSQ_ERR_SUCCESS) rc = mosquitto_int_option(mosq, MOSQ_OPT_SSL_CTX_WITH_DEFAULTS, 1);
    if (rc == MOSQ_ERR_SUCCESS) rc = mosquitto_tls_insecure_set(mosq, true);
    SSL_CTX_free(ctx);
    return rc;
}
#endif
