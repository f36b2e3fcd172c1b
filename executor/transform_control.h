/* transform_control.h — the control word of a transform replay's messages
 * (transform_control.c; docs/design.md, "The control word").
 *
 * Every message of a host replay carries one: the sender's replay counter
 * and whether its start of that replay was refused (it sends the
 * stand-in's NaN, stand_in.h).  A staged or collective message carries it
 * at the head of its packed form, a message through the shared-memory
 * window at the head of its landing area, a pulled message at the head of
 * the addresses its sender sends, and a direct message, which has no
 * packed form, as one small MPI message of its own beside its runs.  The
 * receiver keeps the last word each receive brought; after the wait it
 * says whether a peer's start was refused (RELAY_ERR_PEER, the peer
 * named), and after a deadline passed which peers' messages did not
 * arrive and which replay each peer is at. */
#ifndef RELAY_TRANSFORM_CONTROL_H
#define RELAY_TRANSFORM_CONTROL_H

#include "transform.h"

/* The sender's start of the replay was refused: its elements are NaN. */
enum { RL_CONTROL_REFUSED = 1 };

/* Bytes of the word, a multiple of every element's size, so that the
 * elements after it stay aligned. */
enum { RL_CONTROL_BYTES = (int)sizeof(rl_control) };

/* Binding: the receivers' record of the words (RELAY_ERR_NOMEM). */
relay_status rl_control_prepare(rl_transform_exec *x);
/* This replay's word, written at `at` (RL_CONTROL_BYTES, any alignment). */
void rl_control_put(const rl_transform_exec *x, void *at);
/* Receive k's word, landed at `at`, recorded. */
void rl_control_take(rl_transform_exec *x, int k, const void *at);
/* After a wait whose every MPI call succeeded: RELAY_ERR_PEER naming the
 * peers whose start of this replay was refused, else RELAY_OK. */
relay_status rl_control_verdict(const rl_transform_exec *x);
/* After a deadline passed: RELAY_ERR_TIMEOUT, saying which peers' messages
 * did not arrive and which replay each peer is at, as their words say. */
relay_status rl_control_timed_out(const rl_transform_exec *x);

#endif
