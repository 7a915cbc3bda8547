/* a2a_core._speedups: the optional compiled fast path of the Python binding.
 *
 * A small CPython extension over liba2a_core's C ABI (include/a2a_core.h), built against the
 * stable ABI (Py_LIMITED_API 3.10: one `_speedups.abi3.so` for every CPython 3.10+) and
 * linked to the library bundled next to it in the package (`-la2a_core`, rpath `$ORIGIN`:
 * never a second copy). It builds, in C, the Python objects the pure-ctypes code would build
 * with one foreign call and one attribute read per field:
 *   - sse_feed: one packed feed of an SSE decoder, its events as `a2a_core.Event` tuples;
 *   - outcome: an `Outcome` from `a2a_outcome_get_info` (one call for all its fields);
 *   - stream_next: one client stream event (`a2a_client_stream_next`, the GIL released
 *     while it blocks), its item built as a `StreamItem`.
 * Everything else (errors, comments, limit errors, handles' ownership) stays in Python
 * (a2a_core/_lib.py decides whether this module is used; see the README's "Fast path").
 *
 * Memory rule: every value is copied into a Python object before the function returns; the
 * library never keeps a pointer into Python memory (a chunk is read during the feed call
 * only, as the library's own packed call promises).
 */
#define Py_LIMITED_API 0x030A0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "a2a_core.h"

/* What `setup` receives from Python: the classes to instantiate, the vocabulary tables
 * (C number -> enum member, the dicts of a2a_core.vocab), and the answer reader. */
static PyObject *outcome_cls, *stream_item_cls, *event_cls, *object_new, *read_answer;
static PyObject *t_channel, *t_retry, *t_error, *t_state, *t_sent, *t_version, *t_binding,
    *t_item_kind;
static PyObject *empty_str;
static newfunc tuple_new;

/* The attributes of Outcome and StreamItem this module sets, in one table each (Python
 * checks at setup that they are exactly the dataclasses' fields). */
static const char *const OUTCOME_FIELDS[] = {
    "channel", "http_status", "code", "error", "reason", "message", "state", "terminal",
    "task_id", "context_id", "text", "error_id", "retry", "hint", "success", "data",
    "retry_after", "remote_hint", "remote_retryable", "request_sent", "version", "binding",
    "body_excerpt", "exit_code", "result", "leaked_detail", "cancel_origin", "_owned",
};
enum {
  O_CHANNEL, O_HTTP_STATUS, O_CODE, O_ERROR, O_REASON, O_MESSAGE, O_STATE, O_TERMINAL,
  O_TASK_ID, O_CONTEXT_ID, O_TEXT, O_ERROR_ID, O_RETRY, O_HINT, O_SUCCESS, O_DATA,
  O_RETRY_AFTER, O_REMOTE_HINT, O_REMOTE_RETRYABLE, O_REQUEST_SENT, O_VERSION, O_BINDING,
  O_BODY_EXCERPT, O_EXIT_CODE, O_RESULT, O_LEAKED_DETAIL, O_CANCEL_ORIGIN, O_OWNED, O_COUNT
};
static const char *const ITEM_FIELDS[] = {
    "kind", "outcome", "final", "artifact_id", "append", "last_chunk", "ends_stream",
};
enum { I_KIND, I_OUTCOME, I_FINAL, I_ARTIFACT_ID, I_APPEND, I_LAST_CHUNK, I_ENDS, I_COUNT };
static PyObject *outcome_names[O_COUNT], *item_names[I_COUNT];

static PyObject *names_tuple(const char *const *names, Py_ssize_t n) {
  PyObject *t = PyTuple_New(n);
  if (t == NULL) return NULL;
  for (Py_ssize_t k = 0; k < n; k++) {
    PyObject *s = PyUnicode_FromString(names[k]);
    if (s == NULL || PyTuple_SetItem(t, k, s) < 0) {
      Py_DECREF(t);
      return NULL;
    }
  }
  return t;
}

/* A view as str: None when absent, the shared '' when empty (lossy UTF-8, as the ctypes
 * path decodes). */
static PyObject *view_str(a2a_str v) {
  if (v.ptr == NULL) Py_RETURN_NONE;
  if (v.len == 0) {
    Py_INCREF(empty_str);
    return empty_str;
  }
  return PyUnicode_DecodeUTF8(v.ptr, (Py_ssize_t)v.len, "replace");
}

/* The member for C number `n` of a vocabulary table (KeyError for a number the package
 * does not know, as a2a_core.vocab._word raises). */
static PyObject *word(PyObject *table, unsigned long n) {
  PyObject *key = PyLong_FromUnsignedLong(n);
  if (key == NULL) return NULL;
  PyObject *v = PyDict_GetItemWithError(table, key); /* borrowed */
  if (v == NULL && !PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, key);
  Py_DECREF(key);
  Py_XINCREF(v);
  return v;
}

static PyObject *opt_word(PyObject *table, bool has, unsigned long n) {
  if (!has) Py_RETURN_NONE;
  return word(table, n);
}

static PyObject *new_bool(bool b) { return PyBool_FromLong(b ? 1 : 0); }

/* Sets the slots of a frozen dataclass instance through the slot descriptors
 * (PyObject_GenericSetAttr bypasses the class's refusing __setattr__, as
 * object.__setattr__ does in the dataclass's own __init__). Steals every value. */
static int set_all(PyObject *obj, PyObject **names, PyObject **values, int n) {
  int rc = 0;
  for (int k = 0; k < n; k++) {
    if (rc == 0 && (values[k] == NULL || PyObject_GenericSetAttr(obj, names[k], values[k]) < 0))
      rc = -1;
    Py_XDECREF(values[k]);
  }
  return rc;
}

/* Keeps a new reference to `value` in `*slot`, dropping the old one. */
static void replace(PyObject **slot, PyObject *value) {
  PyObject *old = *slot;
  Py_INCREF(value);
  *slot = value;
  Py_XDECREF(old);
}

static PyObject *blank(PyObject *cls) {
  return PyObject_CallFunctionObjArgs(object_new, cls, NULL);
}

/* An Outcome from a live `a2a_outcome *` (its fields copied now); `owned` becomes its
 * `_owned` (the handle's owner, or None for a borrowed outcome). */
static PyObject *outcome_from(const a2a_outcome *ptr, PyObject *owned) {
  a2a_outcome_info i;
  a2a_result rc = a2a_outcome_get_info(ptr, &i);
  if (rc != A2A_OK) {
    PyErr_Format(PyExc_RuntimeError, "a2a_outcome_get_info failed (%u)", (unsigned)rc);
    return NULL;
  }
  PyObject *hint = PyTuple_New((Py_ssize_t)i.remote_hint_count);
  if (hint == NULL) return NULL;
  for (size_t k = 0; k < i.remote_hint_count; k++) {
    a2a_str hk = {NULL, 0}, hv = {NULL, 0};
    if (a2a_outcome_remote_hint_pair(ptr, k, &hk, &hv) != A2A_OK) {
      Py_DECREF(hint);
      PyErr_SetString(PyExc_RuntimeError, "a2a_outcome_remote_hint_pair failed");
      return NULL;
    }
    /* Absent halves read as '' (as the ctypes path's `view_str(...) or ''`). */
    PyObject *pk = hk.ptr ? view_str(hk) : (Py_INCREF(empty_str), empty_str);
    PyObject *pv = hv.ptr ? view_str(hv) : (Py_INCREF(empty_str), empty_str);
    PyObject *pair = (pk && pv) ? PyTuple_Pack(2, pk, pv) : NULL;
    Py_XDECREF(pk);
    Py_XDECREF(pv);
    if (pair == NULL || PyTuple_SetItem(hint, (Py_ssize_t)k, pair) < 0) {
      Py_DECREF(hint);
      return NULL;
    }
  }
  PyObject *result;
  if (i.result_json.ptr != NULL) {
    PyObject *text = view_str(i.result_json);
    result = text ? PyObject_CallFunctionObjArgs(read_answer, text, NULL) : NULL;
    Py_XDECREF(text);
    if (result == NULL) {
      Py_DECREF(hint);
      return NULL;
    }
  } else {
    result = Py_None;
    Py_INCREF(result);
  }
  PyObject *v[O_COUNT];
  v[O_CHANNEL] = word(t_channel, i.channel);
  v[O_HTTP_STATUS] = i.has_http_status ? PyLong_FromLong(i.http_status) : (Py_INCREF(Py_None), Py_None);
  v[O_CODE] = i.has_code ? PyLong_FromLongLong(i.code) : (Py_INCREF(Py_None), Py_None);
  v[O_ERROR] = opt_word(t_error, i.has_error_name, i.error_name);
  v[O_REASON] = view_str(i.reason);
  v[O_MESSAGE] = view_str(i.message);
  v[O_STATE] = opt_word(t_state, i.has_state, i.state);
  v[O_TERMINAL] = new_bool(i.terminal);
  v[O_TASK_ID] = view_str(i.task_id);
  v[O_CONTEXT_ID] = view_str(i.context_id);
  v[O_TEXT] = view_str(i.text);
  v[O_ERROR_ID] = view_str(i.error_id);
  v[O_RETRY] = word(t_retry, i.retry);
  v[O_HINT] = view_str(i.hint);
  v[O_SUCCESS] = new_bool(i.is_success);
  v[O_DATA] = view_str(i.data);
  v[O_RETRY_AFTER] = i.has_retry_after_secs ? PyLong_FromUnsignedLongLong(i.retry_after_secs)
                                            : (Py_INCREF(Py_None), Py_None);
  v[O_REMOTE_HINT] = hint;
  v[O_REMOTE_RETRYABLE] = i.has_remote_hint_retryable ? new_bool(i.remote_hint_retryable)
                                                      : (Py_INCREF(Py_None), Py_None);
  v[O_REQUEST_SENT] = opt_word(t_sent, i.has_request_sent, i.request_sent);
  v[O_VERSION] = opt_word(t_version, i.has_version, i.version);
  v[O_BINDING] = opt_word(t_binding, i.has_binding, i.binding);
  v[O_BODY_EXCERPT] = view_str(i.body_excerpt);
  v[O_EXIT_CODE] = PyLong_FromLong(i.exit_code);
  v[O_RESULT] = result;
  v[O_LEAKED_DETAIL] = new_bool(i.leaked_detail);
  v[O_CANCEL_ORIGIN] = view_str(i.cancel_origin);
  v[O_OWNED] = owned;
  Py_INCREF(owned);
  PyObject *obj = blank(outcome_cls);
  if (obj == NULL) {
    for (int k = 0; k < O_COUNT; k++) Py_XDECREF(v[k]);
    return NULL;
  }
  if (set_all(obj, outcome_names, v, O_COUNT) < 0) {
    Py_DECREF(obj);
    return NULL;
  }
  return obj;
}

static void *as_ptr(PyObject *o) {
  void *p = PyLong_AsVoidPtr(o);
  if (p == NULL && !PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "NULL handle");
  return p;
}

/* outcome(ptr: int, owned) -> Outcome */
static PyObject *sp_outcome(PyObject *self, PyObject *args) {
  PyObject *p, *owned;
  (void)self;
  if (!PyArg_ParseTuple(args, "OO", &p, &owned)) return NULL;
  const a2a_outcome *ptr = as_ptr(p);
  if (ptr == NULL) return NULL;
  return outcome_from(ptr, owned);
}

/* A StreamItem from an `a2a_stream_item` (its outcome borrowed: copied now). */
static PyObject *item_from(const a2a_stream_item *it) {
  PyObject *v[I_COUNT];
  v[I_KIND] = word(t_item_kind, it->kind);
  v[I_OUTCOME] = outcome_from(it->outcome, Py_None);
  v[I_FINAL] = it->has_final ? new_bool(it->final_flag) : (Py_INCREF(Py_None), Py_None);
  v[I_ARTIFACT_ID] = view_str(it->artifact_id);
  v[I_APPEND] = new_bool(it->append);
  v[I_LAST_CHUNK] = new_bool(it->last_chunk);
  v[I_ENDS] = new_bool(it->ends_stream);
  PyObject *obj = blank(stream_item_cls);
  if (obj == NULL) {
    for (int k = 0; k < I_COUNT; k++) Py_XDECREF(v[k]);
    return NULL;
  }
  if (set_all(obj, item_names, v, I_COUNT) < 0) {
    Py_DECREF(obj);
    return NULL;
  }
  return obj;
}

/* stream_next(stream: int) -> (rc,) | (0, 1, StreamItem) | (0, 2, task_id, attempt)
 *   | (0, 3, outcome_ptr, end_kind or None, resubscribes, dropped, unreadable) | (0, kind)
 * One a2a_client_stream_next, with the GIL released while it waits for the network (header
 * hooks, called from inside it, take the GIL themselves). */
static PyObject *sp_stream_next(PyObject *self, PyObject *arg) {
  (void)self;
  a2a_client_stream *s = as_ptr(arg);
  if (s == NULL) return NULL;
  a2a_client_stream_event ev;
  memset(&ev, 0, sizeof ev);
  a2a_result rc;
  Py_BEGIN_ALLOW_THREADS
  rc = a2a_client_stream_next(s, &ev);
  Py_END_ALLOW_THREADS
  if (rc != A2A_OK) return Py_BuildValue("(I)", (unsigned)rc);
  switch (ev.kind) {
    case A2A_CLIENT_STREAM_EVENT_KIND_ITEM: {
      PyObject *item = item_from(&ev.item);
      if (item == NULL) return NULL;
      return Py_BuildValue("(iiN)", 0, 1, item);
    }
    case A2A_CLIENT_STREAM_EVENT_KIND_RESUBSCRIBING: {
      PyObject *task = ev.task_id.ptr ? view_str(ev.task_id) : (Py_INCREF(empty_str), empty_str);
      if (task == NULL) return NULL;
      return Py_BuildValue("(iiNI)", 0, 2, task, (unsigned)ev.attempt);
    }
    case A2A_CLIENT_STREAM_EVENT_KIND_END: {
      PyObject *kind = ev.has_end_kind ? PyLong_FromUnsignedLong(ev.end_kind)
                                       : (Py_INCREF(Py_None), Py_None);
      if (kind == NULL) return NULL;
      return Py_BuildValue("(iiNNIII)", 0, 3, PyLong_FromVoidPtr((void *)ev.outcome), kind,
                           (unsigned)ev.resubscribes, (unsigned)ev.dropped_events,
                           (unsigned)ev.unreadable_events);
    }
    default:
      return Py_BuildValue("(iI)", 0, (unsigned)ev.kind);
  }
}

/* The str of value [start, end) of a packed batch, shared with the previous value of the same
 * field when the bytes are equal (the type of nearly every event is `message`). */
static PyObject *shared(const char *base, uint64_t start, uint64_t end, const char **last,
                        size_t *last_len, PyObject **last_obj) {
  size_t len = (size_t)(end - start);
  const char *p = base + start;
  if (len == 0) {
    Py_INCREF(empty_str);
    return empty_str;
  }
  if (*last_obj != NULL && *last_len == len && memcmp(*last, p, len) == 0) {
    Py_INCREF(*last_obj);
    return *last_obj;
  }
  PyObject *s = PyUnicode_DecodeUTF8(p, (Py_ssize_t)len, "replace");
  if (s == NULL) return NULL;
  Py_XDECREF(*last_obj);
  Py_INCREF(s);
  *last_obj = s;
  *last = p;
  *last_len = len;
  return s;
}

/* sse_feed(decoder: int, chunk: bytes) -> (rc, events, comments, limit_errors, items, n_items)
 * One a2a_sse_decoder_feed_packed; the events become Event tuples here. `items` (the address
 * of the item array) and its length are for the caller's comment / limit-error handling,
 * valid until the next call on the decoder. */
static PyObject *sp_sse_feed(PyObject *self, PyObject *args) {
  PyObject *h, *chunk;
  (void)self;
  if (!PyArg_ParseTuple(args, "OO!", &h, &PyBytes_Type, &chunk)) return NULL;
  a2a_sse_decoder *d = as_ptr(h);
  if (d == NULL) return NULL;
  char *data;
  Py_ssize_t len;
  if (PyBytes_AsStringAndSize(chunk, &data, &len) < 0) return NULL;
  a2a_sse_packed p;
  a2a_result rc = a2a_sse_decoder_feed_packed(d, (const uint8_t *)data, (size_t)len, &p);
  if (rc != A2A_OK) return Py_BuildValue("(I)", (unsigned)rc);
  size_t n = p.event_count;
  PyObject *events = PyList_New((Py_ssize_t)n);
  if (events == NULL) return NULL;
  const char *base = (const char *)p.bytes.ptr;
  const uint64_t *off = p.offsets;
  const char *lt = NULL, *li = NULL;
  size_t ltl = 0, lil = 0;
  PyObject *lto = NULL, *lio = NULL;
  for (size_t k = 0; k < n; k++) {
    const uint64_t *o = off + 3 * k;
    /* Each value ends with a CR that is not part of it: [o[j], o[j+1] - 1). */
    PyObject *t = shared(base, o[0], o[1] - 1, &lt, &ltl, &lto);
    PyObject *dv = t ? PyUnicode_DecodeUTF8(base + o[1], (Py_ssize_t)(o[2] - 1 - o[1]), "replace")
                     : NULL;
    PyObject *id = dv ? shared(base, o[2], o[3] - 1, &li, &lil, &lio) : NULL;
    PyObject *fields = id ? PyTuple_New(3) : NULL;
    if (fields == NULL) {
      Py_XDECREF(t);
      Py_XDECREF(dv);
      Py_XDECREF(id);
      goto fail;
    }
    PyTuple_SetItem(fields, 0, t);
    PyTuple_SetItem(fields, 1, dv);
    PyTuple_SetItem(fields, 2, id);
    /* Event is a NamedTuple (a tuple subclass): tuple's own constructor, as
     * `tuple.__new__(Event, fields)` does, without running Python code per event. */
    PyObject *targs = PyTuple_Pack(1, fields);
    Py_DECREF(fields);
    PyObject *ev = targs ? tuple_new((PyTypeObject *)event_cls, targs, NULL) : NULL;
    Py_XDECREF(targs);
    if (ev == NULL) goto fail;
    /* An Event holds three str and nothing else (NamedTuple: no __dict__), so it can never
     * be part of a reference cycle: the cycle collector need not track it (CPython does the
     * same for such plain tuples, but only when a collection happens to visit them). Without
     * this, every collection triggered while a stream's events are kept walks all of them:
     * most of the cost per event on long streams. */
    PyObject_GC_UnTrack(ev);
    if (PyList_SetItem(events, (Py_ssize_t)k, ev) < 0) goto fail;
  }
  Py_XDECREF(lto);
  Py_XDECREF(lio);
  return Py_BuildValue("(iNnnNn)", 0, events, (Py_ssize_t)p.comment_count,
                       (Py_ssize_t)p.limit_error_count, PyLong_FromVoidPtr((void *)p.items),
                       (Py_ssize_t)p.item_count);
fail:
  Py_XDECREF(lto);
  Py_XDECREF(lio);
  Py_DECREF(events);
  return NULL;
}

/* setup(Outcome, StreamItem, Event, read_answer, tables) with tables the vocabulary dicts
 * (Channel, Retry, ErrorName, TaskState, RequestSent, ProtocolVersion, Binding,
 * StreamItemKind). Returns (outcome fields, stream item fields) for Python to check. */
static PyObject *sp_setup(PyObject *self, PyObject *args) {
  PyObject *oc, *ic, *ec, *ra, *tables;
  (void)self;
  if (!PyArg_ParseTuple(args, "OOOOO!", &oc, &ic, &ec, &ra, &PyTuple_Type, &tables)) return NULL;
  PyObject **slots[] = {&t_channel, &t_retry, &t_error, &t_state, &t_sent, &t_version,
                        &t_binding, &t_item_kind};
  const Py_ssize_t n = (Py_ssize_t)(sizeof slots / sizeof slots[0]);
  if (PyTuple_Size(tables) != n) {
    PyErr_SetString(PyExc_ValueError, "setup: wrong number of vocabulary tables");
    return NULL;
  }
  if (!PyType_Check(ec) || !PyType_IsSubtype((PyTypeObject *)ec, &PyTuple_Type)) {
    PyErr_SetString(PyExc_TypeError, "setup: Event must be a tuple subclass");
    return NULL;
  }
  for (Py_ssize_t k = 0; k < n; k++) {
    PyObject *t = PyTuple_GetItem(tables, k);
    if (t == NULL || !PyDict_Check(t)) {
      PyErr_SetString(PyExc_TypeError, "setup: vocabulary tables must be dicts");
      return NULL;
    }
    replace(slots[k], t);
  }
  replace(&outcome_cls, oc);
  replace(&stream_item_cls, ic);
  replace(&event_cls, ec);
  replace(&read_answer, ra);
  PyObject *of = names_tuple(OUTCOME_FIELDS, O_COUNT);
  PyObject *itf = of ? names_tuple(ITEM_FIELDS, I_COUNT) : NULL;
  if (itf == NULL) {
    Py_XDECREF(of);
    return NULL;
  }
  return Py_BuildValue("(NN)", of, itf);
}

/* library_address() -> the address of a2a_version as this module's linked library has it:
 * Python compares it with the ctypes handle's to prove both are one loaded library. */
static PyObject *sp_library_address(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  return PyLong_FromVoidPtr((void *)(uintptr_t)&a2a_version);
}

static PyMethodDef methods[] = {
    {"setup", sp_setup, METH_VARARGS, "Registers the classes and tables the fast path builds."},
    {"outcome", sp_outcome, METH_VARARGS, "outcome(ptr, owned) -> Outcome."},
    {"stream_next", sp_stream_next, METH_O, "One client stream event (GIL released)."},
    {"sse_feed", sp_sse_feed, METH_VARARGS, "One packed SSE feed, events built in C."},
    {"library_address", sp_library_address, METH_NOARGS, "Address of a2a_version."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "a2a_core._speedups",
    "Compiled fast path of a2a_core over liba2a_core (optional; see _lib.py).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__speedups(void) {
  empty_str = PyUnicode_FromStringAndSize("", 0);
  if (empty_str == NULL) return NULL;
  object_new = PyObject_GetAttrString((PyObject *)&PyBaseObject_Type, "__new__");
  if (object_new == NULL) return NULL;
  tuple_new = (newfunc)PyType_GetSlot(&PyTuple_Type, Py_tp_new);
  if (tuple_new == NULL) {
    PyErr_SetString(PyExc_ImportError, "tuple has no tp_new slot");
    return NULL;
  }
  for (int k = 0; k < O_COUNT; k++)
    if ((outcome_names[k] = PyUnicode_InternFromString(OUTCOME_FIELDS[k])) == NULL) return NULL;
  for (int k = 0; k < I_COUNT; k++)
    if ((item_names[k] = PyUnicode_InternFromString(ITEM_FIELDS[k])) == NULL) return NULL;
  return PyModule_Create(&module);
}
