/* libcrypt (libxcrypt, Debian: libcrypt-dev): the web page's password hash.
 * yescrypt ("$y$"), the KDF Debian uses for /etc/shadow, with a salt from the
 * system's randomness. Fixed signatures for Swift. */
#ifndef C1NK_CRYPT_SHIM_H
#define C1NK_CRYPT_SHIM_H

#include <crypt.h>
#include <stdlib.h>
#include <string.h>

/* Hashes `password` with a fresh salt into `out` (a NUL-terminated "$y$…"
 * string). Returns 0, or -1 when the library refused. */
static inline int c1nk_crypt_hash(const char *password, char *out, int out_size) {
  char salt[CRYPT_GENSALT_OUTPUT_SIZE];
  if (!crypt_gensalt_rn("$y$", 0, NULL, 0, salt, (int)sizeof salt)) return -1;
  struct crypt_data *data = calloc(1, sizeof *data);
  if (!data) return -1;
  const char *hash = crypt_rn(password, salt, data, (int)sizeof *data);
  int ok = hash && hash[0] == '$' && (int)strlen(hash) < out_size;
  if (ok) strcpy(out, hash);
  explicit_bzero(data, sizeof *data);
  free(data);
  return ok ? 0 : -1;
}

/* 1 when `password` hashes to `hash` (its own salt and method), compared in
 * constant time; 0 otherwise. */
static inline int c1nk_crypt_verify(const char *password, const char *hash) {
  struct crypt_data *data = calloc(1, sizeof *data);
  if (!data) return 0;
  const char *again = crypt_rn(password, hash, data, (int)sizeof *data);
  int same = 0;
  if (again && again[0] == '$') {
    size_t a = strlen(again), b = strlen(hash);
    unsigned char diff = (unsigned char)(a != b);
    for (size_t i = 0; i < a && i < b; i++) diff |= (unsigned char)(again[i] ^ hash[i]);
    same = diff == 0;
  }
  explicit_bzero(data, sizeof *data);
  free(data);
  return same;
}

#endif
