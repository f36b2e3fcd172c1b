/* relay/export.h — which declarations the shared libraries export.
 *
 * relay builds with hidden symbol visibility: everything is private to its
 * library unless its public declaration carries RELAY_API.  So the
 * libraries' dynamic symbol tables hold the relay_* API and nothing else
 * (as zstd's ZSTDLIB_API and libuv's UV_EXTERN do).  A static build exports
 * nothing, and the macro costs nothing there. */
#ifndef RELAY_EXPORT_H
#define RELAY_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define RELAY_API __attribute__((visibility("default")))
#else
#define RELAY_API
#endif

#endif
