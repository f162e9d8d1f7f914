#ifndef GEOWAKE_CNATS_SHIM_H
#define GEOWAKE_CNATS_SHIM_H
// The NATS C client (libnats, JetStream included) for geowake serve --nats: a connection, the two
// streams (fixes in, events out), a durable pull consumer of the fixes, and asynchronous publishes
// whose failures are counted. Small helpers over the client's API, so that Swift sees no
// pointer-to-pointer out-parameters or string arrays.
#include <nats/nats.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct gw_nats {
  natsConnection *connection;
  jsCtx *js;
  natsSubscription *fixes;
  volatile int64_t publishFailures;
} gw_nats;

static inline void gw_nats_publish_failed(jsCtx *js, jsPubAckErr *pae, void *closure) {
  (void)js;
  (void)pae;
  __atomic_fetch_add(&((gw_nats *)closure)->publishFailures, 1, __ATOMIC_SEQ_CST);
}

/// Writes the client's text for `s` (and JetStream's error code) into `err`.
static inline void gw_nats_error(natsStatus s, jsErrCode code, const char *what, char *err, int errlen) {
  const char *last = nats_GetLastError(NULL);
  if (code != 0) {
    snprintf(err, (size_t)errlen, "%s: %s%s%s (jetstream error %d)", what, natsStatus_GetText(s), last ? ": " : "", last ? last : "", (int)code);
  } else {
    snprintf(err, (size_t)errlen, "%s: %s%s%s", what, natsStatus_GetText(s), last ? ": " : "", last ? last : "");
  }
}

/// The stream `name` over `subjects` (one wildcard subject), made with file storage when missing.
static inline natsStatus gw_nats_stream(jsCtx *js, const char *name, const char *subject, char *err, int errlen) {
  jsStreamInfo *info = NULL;
  jsErrCode code = 0;
  natsStatus s = js_GetStreamInfo(&info, js, name, NULL, &code);
  if (s == NATS_OK) {
    jsStreamInfo_Destroy(info);
    return NATS_OK;
  }
  if (s != NATS_NOT_FOUND) {
    gw_nats_error(s, code, name, err, errlen);
    return s;
  }
  jsStreamConfig config;
  jsStreamConfig_Init(&config);
  config.Name = name;
  const char *subjects[1] = {subject};
  config.Subjects = subjects;
  config.SubjectsLen = 1;
  config.Storage = js_FileStorage;
  s = js_AddStream(&info, js, &config, NULL, &code);
  if (s != NATS_OK) {
    gw_nats_error(s, code, name, err, errlen);
    return s;
  }
  jsStreamInfo_Destroy(info);
  return NATS_OK;
}

/// Connects to `url` (reconnecting without end), makes the streams, and the durable pull consumer
/// of `fixesSubject` on `fixesStream` afresh from the message after stream sequence `after` (the
/// last one the engine used: what was delivered and not used comes again, in order, at once,
/// rather than after its acknowledgement wait behind newer messages); 0, or the client's status
/// with `err` saying what failed.
static inline int gw_nats_open(
  gw_nats **out, const char *url, const char *fixesStream, const char *fixesSubject, const char *eventsStream,
  const char *eventsSubject, const char *durable, uint64_t after, char *err, int errlen) {
  gw_nats *link = calloc(1, sizeof(gw_nats));
  if (!link) return NATS_NO_MEMORY;
  natsOptions *options = NULL;
  natsStatus s = natsOptions_Create(&options);
  if (s == NATS_OK) s = natsOptions_SetURL(options, url);
  if (s == NATS_OK) s = natsOptions_SetMaxReconnect(options, -1);
  if (s == NATS_OK) s = natsOptions_SetReconnectWait(options, 250);
  if (s == NATS_OK) s = natsConnection_Connect(&link->connection, options);
  natsOptions_Destroy(options);
  if (s != NATS_OK) {
    gw_nats_error(s, 0, url, err, errlen);
    free(link);
    return s;
  }
  jsOptions js;
  jsOptions_Init(&js);
  js.PublishAsync.MaxPending = 4096;
  js.PublishAsync.ErrHandler = gw_nats_publish_failed;
  js.PublishAsync.ErrHandlerClosure = link;
  s = natsConnection_JetStream(&link->js, link->connection, &js);
  if (s == NATS_OK) s = gw_nats_stream(link->js, fixesStream, fixesSubject, err, errlen);
  if (s == NATS_OK) s = gw_nats_stream(link->js, eventsStream, eventsSubject, err, errlen);
  if (s == NATS_OK) {
    jsErrCode deleted = 0;
    natsStatus gone = js_DeleteConsumer(link->js, fixesStream, durable, NULL, &deleted);
    if (gone != NATS_OK && gone != NATS_NOT_FOUND) {
      gw_nats_error(gone, deleted, "removing the fixes consumer to start it again", err, errlen);
      s = gone;
    }
  }
  if (s == NATS_OK) {
    jsSubOptions sub;
    jsSubOptions_Init(&sub);
    sub.Stream = fixesStream;
    if (after > 0) {
      sub.Config.DeliverPolicy = js_DeliverByStartSequence;
      sub.Config.OptStartSeq = after + 1;
    }
    sub.Config.AckPolicy = js_AckExplicit;
    sub.Config.MaxAckPending = 20000;
    sub.Config.AckWait = (int64_t)60 * 1000000000LL;
    jsErrCode code = 0;
    s = js_PullSubscribe(&link->fixes, link->js, fixesSubject, durable, NULL, &sub, &code);
    if (s != NATS_OK) gw_nats_error(s, code, "the fixes consumer", err, errlen);
  } else if (err[0] == 0) {
    gw_nats_error(s, 0, "JetStream", err, errlen);
  }
  if (s != NATS_OK) {
    if (link->js) jsCtx_Destroy(link->js);
    natsConnection_Destroy(link->connection);
    free(link);
    return s;
  }
  *out = link;
  return 0;
}

/// Up to `batch` fix messages, waiting at most `timeoutMs` for the first: the count (0 after a
/// wait with none), or minus the client's status.
static inline int gw_nats_fetch(gw_nats *link, natsMsgList *list, int batch, int64_t timeoutMs) {
  jsErrCode code = 0;
  natsStatus s = natsSubscription_Fetch(list, link->fixes, batch, timeoutMs, &code);
  if (s == NATS_TIMEOUT) return 0;
  if (s != NATS_OK) return -(int)s;
  return list->Count;
}

static inline const char *gw_nats_data(natsMsgList *list, int k) { return natsMsg_GetData(list->Msgs[k]); }

/// The stream sequence of message `k` (0 when it has no JetStream metadata).
static inline uint64_t gw_nats_stream_sequence(natsMsgList *list, int k) {
  jsMsgMetaData *meta = NULL;
  if (natsMsg_GetMetaData(&meta, list->Msgs[k]) != NATS_OK || !meta) return 0;
  uint64_t seq = meta->Sequence.Stream;
  jsMsgMetaData_Destroy(meta);
  return seq;
}
static inline int gw_nats_length(natsMsgList *list, int k) { return natsMsg_GetDataLength(list->Msgs[k]); }

/// Acknowledges every message of the list (each is done with: used, or refused with a reason).
static inline int gw_nats_ack(natsMsgList *list) {
  natsStatus failed = NATS_OK;
  for (int k = 0; k < list->Count; k++) {
    natsStatus s = natsMsg_Ack(list->Msgs[k], NULL);
    if (s != NATS_OK) failed = s;
  }
  return (int)failed;
}

static inline void gw_nats_free(natsMsgList *list) { natsMsgList_Destroy(list); }

/// Publishes `data` on `subject` with the header Nats-Msg-Id `id` (JetStream drops a second with
/// the same id within the stream's duplicate window), without waiting for the answer.
static inline int gw_nats_publish(gw_nats *link, const char *subject, const char *id, const char *data, int length) {
  natsMsg *message = NULL;
  natsStatus s = natsMsg_Create(&message, subject, NULL, data, length);
  if (s == NATS_OK) s = natsMsgHeader_Set(message, "Nats-Msg-Id", id);
  if (s == NATS_OK) s = js_PublishMsgAsync(link->js, &message, NULL);
  if (message) natsMsg_Destroy(message);
  return (int)s;
}

/// Waits (at most `timeoutMs`) for the answers to every publish since the last call: 0 when all
/// were stored, else the number that failed (or minus the client's status).
static inline int64_t gw_nats_settle(gw_nats *link, int64_t timeoutMs) {
  jsPubOptions options;
  jsPubOptions_Init(&options);
  options.MaxWait = timeoutMs;
  natsStatus s = js_PublishAsyncComplete(link->js, &options);
  int64_t failures = __atomic_exchange_n(&link->publishFailures, 0, __ATOMIC_SEQ_CST);
  if (s != NATS_OK) return -(int64_t)s;
  return failures;
}

static inline void gw_nats_close(gw_nats *link) {
  if (!link) return;
  natsSubscription_Destroy(link->fixes);
  jsCtx_Destroy(link->js);
  natsConnection_Destroy(link->connection);
  free(link);
}
#endif
