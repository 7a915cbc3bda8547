/* a2a_core._speedups: the optional compiled fast path of the Python binding.
 *
 * A small CPython extension over liba2a_core's C ABI (include/a2a_core.h), built against the
 * stable ABI (Py_LIMITED_API 3.10: one `_speedups.abi3.so` for every CPython 3.10+) and
 * linked to the library bundled next to it in the package (`-la2a_core`, rpath `$ORIGIN`:
 * never a second copy). It builds, in C, the Python objects the pure-ctypes code would build
 * with one foreign call and one attribute read per field:
 *   - sse_feed: one packed feed of an SSE decoder, its events as `a2a_core.Event` tuples;
 *   - outcome: an `Outcome` from `a2a_outcome_get_info` (one call for all its fields), its
 *     answer (`result`) built here too, read straight from the canonical JSON into its
 *     classes (see "the answer straight from its text" below; a text it does not read goes
 *     through dicts, see "the answer");
 *   - step: one step of a call of the client machine on the reference driver's transport
 *     (`a2a_call_run`, the GIL released while it blocks, then `a2a_call_poll_event`), a
 *     stream item built as a `StreamItem` and returned as it is;
 *   - unary: a whole send / get / cancel on the machine and that transport (made, run to
 *     its end, its Outcome built here), one call;
 *   - answer: the answer of one canonical JSON text (the tests compare it with Python's).
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
#include <structmember.h>

#include "a2a_core.h"

/* What `setup` receives from Python: the classes to instantiate, the vocabulary tables
 * (C number -> enum member, the dicts of a2a_core.vocab), and the answer reader. */
static PyObject *outcome_cls, *stream_item_cls, *event_cls, *object_new, *read_answer;
static PyObject *t_channel, *t_retry, *t_error, *t_state, *t_sent, *t_version, *t_binding,
    *t_item_kind;
static PyObject *empty_str;
static newfunc tuple_new;
/* Event's tp_alloc, used directly (as tuple's own constructor does for a subclass) when
 * Python says the interpreter's tuple layout is one whose construction is exactly "allocate,
 * set the items" (3.10-3.13); NULL otherwise, and tuple's constructor is called. */
static allocfunc event_alloc;

/* The attributes of Outcome and StreamItem this module sets, in one table each (Python
 * checks at setup that they are exactly the dataclasses' fields). */
static const char *const OUTCOME_FIELDS[] = {
    "channel", "http_status", "code", "error", "reason", "message", "state", "terminal",
    "task_id", "context_id", "text", "error_id", "retry", "hint", "success", "data",
    "retry_after", "remote_hint", "remote_retryable", "request_sent", "version", "binding",
    "body_excerpt", "exit_code", "result", "leaked_detail", "cancel_origin", "_owned",
    "_result_text",
};
enum {
  O_CHANNEL, O_HTTP_STATUS, O_CODE, O_ERROR, O_REASON, O_MESSAGE, O_STATE, O_TERMINAL,
  O_TASK_ID, O_CONTEXT_ID, O_TEXT, O_ERROR_ID, O_RETRY, O_HINT, O_SUCCESS, O_DATA,
  O_RETRY_AFTER, O_REMOTE_HINT, O_REMOTE_RETRYABLE, O_REQUEST_SENT, O_VERSION, O_BINDING,
  O_BODY_EXCERPT, O_EXIT_CODE, O_RESULT, O_LEAKED_DETAIL, O_CANCEL_ORIGIN, O_OWNED,
  O_RESULT_TEXT, O_COUNT
};
static const char *const ITEM_FIELDS[] = {
    "kind", "outcome", "final", "artifact_id", "append", "last_chunk", "ends_stream",
};
enum { I_KIND, I_OUTCOME, I_FINAL, I_ARTIFACT_ID, I_APPEND, I_LAST_CHUNK, I_ENDS, I_COUNT };
static PyObject *outcome_names[O_COUNT], *item_names[I_COUNT];

/* The answer's classes (a2a_core.answer), built here from the canonical JSON's parsed dict
 * (a fixed, documented shape: ffi/README.md) as answer_from_json builds them, and the
 * readers: the json module's C scanner for the text, Python's answer_from_json for any
 * dict this code does not build itself (file parts, unknown kinds, missing keys: Python
 * then builds it or raises exactly what it raises). Set by setup; NULL: read_answer reads. */
enum { A_TEXT, A_DATA, A_FILE, A_MESSAGE, A_STATUS, A_ARTIFACT, A_TASK, A_STATUS_UPDATE,
       A_ARTIFACT_UPDATE, A_COUNT };
static PyObject *answer_cls[A_COUNT], *scan_json, *answer_from_dict;
/* outcome.py's _UNREAD: an Outcome's `result` slot holds it and `_result_text` the JSON
 * until `result` is first read (outcome.py's _LazyResult builds it then, with `answer`
 * below). NULL: the answer is built when the Outcome is. */
static PyObject *unread;
static void answer_field_names(int c, PyObject **names);
static allocfunc answer_alloc[A_COUNT];
/* Every key and attribute name the answer builder uses, interned once. */
enum {
  K_KIND, K_TEXT, K_DATA, K_METADATA, K_MEDIA_TYPE, K_NAME, K_MESSAGE_ID, K_ROLE, K_PARTS,
  K_CONTEXT_ID, K_TASK_ID, K_STATE, K_MESSAGE, K_TIMESTAMP, K_ARTIFACT_ID, K_DESCRIPTION,
  K_ID, K_STATUS, K_ARTIFACTS, K_HISTORY, K_FINAL, K_ARTIFACT, K_APPEND, K_LAST_CHUNK,
  K_COUNT
};
static const char *const KEY_NAMES[] = {
    "kind", "text", "data", "metadata", "media_type", "name", "message_id", "role", "parts",
    "context_id", "task_id", "state", "message", "timestamp", "artifact_id", "description",
    "id", "status", "artifacts", "history", "final", "artifact", "append", "last_chunk",
};
static PyObject *keys[K_COUNT];
/* The kind words, and the fields of each class in the order the builder sets them (setup
 * returns these lists: Python checks them against the dataclasses' fields). */
enum { W_TEXT, W_DATA, W_FILE, W_MESSAGE, W_TASK, W_STATUS_UPDATE, W_ARTIFACT_UPDATE, W_COUNT };
static const char *const KIND_WORDS[] = {
    "text", "data", "file", "message", "task", "status-update", "artifact-update",
};
static PyObject *kind_words[W_COUNT];
static const int F_TEXT[] = {K_TEXT, K_METADATA, K_MEDIA_TYPE, K_NAME, K_KIND, -1};
static const int F_DATA[] = {K_DATA, K_METADATA, K_MEDIA_TYPE, K_NAME, K_KIND, -1};
static const int F_MESSAGE[] = {K_MESSAGE_ID, K_ROLE, K_PARTS, K_CONTEXT_ID, K_TASK_ID,
                                K_METADATA, K_KIND, -1};
static const int F_STATUS[] = {K_STATE, K_MESSAGE, K_TIMESTAMP, -1};
static const int F_ARTIFACT[] = {K_ARTIFACT_ID, K_PARTS, K_NAME, K_DESCRIPTION, K_METADATA, -1};
static const int F_TASK[] = {K_ID, K_CONTEXT_ID, K_STATUS, K_ARTIFACTS, K_HISTORY, K_METADATA,
                             K_KIND, -1};
static const int F_STATUS_UPDATE[] = {K_TASK_ID, K_CONTEXT_ID, K_STATUS, K_FINAL, K_METADATA,
                                      K_KIND, -1};
static const int F_ARTIFACT_UPDATE[] = {K_TASK_ID, K_CONTEXT_ID, K_ARTIFACT, K_APPEND,
                                        K_LAST_CHUNK, K_METADATA, K_KIND, -1};
/* Per class (A_*): its fields, NULL for FilePart (built by Python). */
static const int *const CLASS_FIELDS[A_COUNT] = {
    F_TEXT, F_DATA, NULL, F_MESSAGE, F_STATUS, F_ARTIFACT, F_TASK, F_STATUS_UPDATE,
    F_ARTIFACT_UPDATE,
};

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

/* The last task id and context id made into str, kept: every item of a stream carries the
 * same two, in its Outcome and again in its answer (callgrind: four UTF-8 decodes and
 * releases per stream item, about 1.6k instructions). Only printable ASCII text is kept, for
 * which the strict and the lossy decodes give the same str. Held under the GIL. */
#define MEMO_MAX 64
typedef struct {
  PyObject *s;
  Py_ssize_t n;
  char b[MEMO_MAX];
} str_memo;
static str_memo memo_task_id, memo_context_id;

/* `p[0..n)` as str, from `m` when it holds that text; NULL (no exception) when the text is
 * not printable ASCII of 1..MEMO_MAX bytes (the caller decodes it itself). */
static PyObject *memo_str(str_memo *m, const char *p, Py_ssize_t n) {
  if (n <= 0 || n > MEMO_MAX) return NULL;
  if (m->s != NULL && m->n == n && memcmp(m->b, p, (size_t)n) == 0) {
    Py_INCREF(m->s);
    return m->s;
  }
  for (Py_ssize_t k = 0; k < n; k++)
    if ((unsigned char)p[k] < 0x20 || (unsigned char)p[k] > 0x7e) return NULL;
  PyObject *s = PyUnicode_DecodeUTF8(p, n, "strict");
  if (s == NULL) {
    PyErr_Clear();
    return NULL;
  }
  Py_XDECREF(m->s);
  Py_INCREF(s);
  m->s = s;
  m->n = n;
  memcpy(m->b, p, (size_t)n);
  return s;
}

/* view_str through a memo. */
static PyObject *memo_view(str_memo *m, a2a_str v) {
  PyObject *s = v.ptr != NULL ? memo_str(m, v.ptr, (Py_ssize_t)v.len) : NULL;
  return s != NULL ? s : view_str(v);
}

/* The member for C number `n` of a vocabulary table (KeyError for a number the package
 * does not know, as a2a_core.vocab._word raises). */
/* The members already looked up, per table (its first WORD_MEMO numbers; cleared by setup,
 * which replaces the tables): every stream item's Outcome reads five of them (callgrind: a
 * dict lookup each, about 110 instructions). */
#define WORD_MEMO 32
static struct {
  PyObject *table;
  PyObject *v[WORD_MEMO];
} word_memos[8];

static void word_memos_clear(void) {
  for (size_t t = 0; t < sizeof word_memos / sizeof word_memos[0]; t++) {
    for (int k = 0; k < WORD_MEMO; k++) Py_CLEAR(word_memos[t].v[k]);
    word_memos[t].table = NULL;
  }
}

static PyObject *word_lookup(PyObject *table, unsigned long n);

static PyObject *word(PyObject *table, unsigned long n) {
  if (n >= WORD_MEMO) return word_lookup(table, n);
  size_t t = 0, count = sizeof word_memos / sizeof word_memos[0];
  while (t < count && word_memos[t].table != table && word_memos[t].table != NULL) t++;
  if (t == count) return word_lookup(table, n);
  word_memos[t].table = table;
  PyObject *v = word_memos[t].v[n];
  if (v == NULL) {
    v = word_lookup(table, n);
    if (v == NULL) return NULL;
    Py_INCREF(v);
    word_memos[t].v[n] = v;
    return v;
  }
  Py_INCREF(v);
  return v;
}

static PyObject *word_lookup(PyObject *table, unsigned long n) {
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

/* The slot descriptors of one class's fields (in a field table's order) and their setters,
 * looked up once at setup: setting a field is then the descriptor's own set call, what
 * PyObject_GenericSetAttr does after finding it in the type. n == 0: not bound (a field was
 * not a data descriptor of the class), PyObject_GenericSetAttr is used. */
#define MAX_FIELDS 32
typedef struct {
  PyObject *descr[MAX_FIELDS];
  descrsetfunc set[MAX_FIELDS];
  int n;
  /* Where each field's slot lies in an instance (found by `find_slots`), or `direct` false:
   * the setters are called. */
  Py_ssize_t off[MAX_FIELDS];
  bool direct;
} setters;
static setters outcome_set, item_set;

static void unbind(setters *st) {
  for (int k = 0; k < st->n; k++) Py_CLEAR(st->descr[k]);
  st->n = 0;
  st->direct = false;
}

/* Finds where each bound field's slot lies in an instance of `cls`: a fresh instance (every
 * slot NULL) has each field set in turn, through its own setter, to a marker, and its memory
 * after the object header (up to the class's __basicsize__) searched for that pointer; the
 * field is deleted again through the setter and its slot must then read NULL. Only when
 * every field is found once, at offsets of its own, are the slots written directly (a fresh
 * instance's field set is then one store: callgrind, the setters' checks were about 2.8k
 * instructions per stream item for its ~50 fields). */
static void find_slots(setters *st, PyObject *cls) {
  st->direct = false;
  PyObject *size = PyObject_GetAttrString(cls, "__basicsize__");
  Py_ssize_t basic = size ? PyLong_AsSsize_t(size) : -1;
  Py_XDECREF(size);
  allocfunc alloc = (allocfunc)PyType_GetSlot((PyTypeObject *)cls, Py_tp_alloc);
  PyObject *mark = PyList_New(0);
  PyObject *probe = (basic > 0 && alloc != NULL && mark != NULL) ? alloc((PyTypeObject *)cls, 0) : NULL;
  bool ok = probe != NULL;
  const Py_ssize_t first = (Py_ssize_t)sizeof(PyObject), step = (Py_ssize_t)sizeof(PyObject *);
  for (int k = 0; ok && k < st->n; k++) {
    Py_ssize_t found = -1;
    if (st->set[k](st->descr[k], probe, mark) < 0) {
      ok = false;
      break;
    }
    for (Py_ssize_t at = first; at + step <= basic; at += step) {
      PyObject *v;
      memcpy(&v, (char *)probe + at, sizeof v);
      if (v == mark) {
        if (found >= 0) ok = false;
        found = at;
      }
    }
    if (st->set[k](st->descr[k], probe, NULL) < 0) ok = false;
    if (found < 0) ok = false;
    if (ok) {
      PyObject *v;
      memcpy(&v, (char *)probe + found, sizeof v);
      if (v != NULL) ok = false;
      for (int j = 0; j < k; j++)
        if (st->off[j] == found) ok = false;
      st->off[k] = found;
    }
  }
  if (PyErr_Occurred()) PyErr_Clear();
  Py_XDECREF(probe);
  Py_XDECREF(mark);
  st->direct = ok;
}

static void bind(setters *st, PyObject *cls, PyObject **names, int n) {
  unbind(st);
  if (n > MAX_FIELDS) return;
  for (int k = 0; k < n; k++) {
    PyObject *d = PyObject_GetAttr(cls, names[k]); /* a member descriptor: itself */
    descrsetfunc f = d ? (descrsetfunc)PyType_GetSlot(Py_TYPE(d), Py_tp_descr_set) : NULL;
    if (f == NULL) {
      PyErr_Clear();
      Py_XDECREF(d);
      for (int j = 0; j < k; j++) Py_CLEAR(st->descr[j]);
      return;
    }
    st->descr[k] = d;
    st->set[k] = f;
  }
  st->n = n;
  find_slots(st, cls);
}

/* Sets the slots of a fresh frozen dataclass instance (its slots all NULL) directly where
 * find_slots found them, else through the slot descriptors (bypassing
 * the class's refusing __setattr__, as object.__setattr__ does in the dataclass's own
 * __init__): the bound setters of `st` when bound, else PyObject_GenericSetAttr. Steals
 * every value. */
static int set_all(PyObject *obj, PyObject **names, const setters *st, PyObject **values, int n) {
  int rc = 0;
  bool bound = st != NULL && st->n == n;
  if (bound && st->direct) {
    /* A fresh instance: every slot NULL, each value stored where its setter would. */
    for (int k = 0; k < n; k++)
      if (values[k] == NULL) rc = -1;
    if (rc == 0) {
      for (int k = 0; k < n; k++) memcpy((char *)obj + st->off[k], &values[k], sizeof values[k]);
      return 0;
    }
    for (int k = 0; k < n; k++) Py_XDECREF(values[k]);
    return -1;
  }
  for (int k = 0; k < n; k++) {
    if (rc == 0 && (values[k] == NULL ||
                    (bound ? st->set[k](st->descr[k], obj, values[k])
                           : PyObject_GenericSetAttr(obj, names[k], values[k])) < 0))
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

/* A new instance of a slots dataclass with no field set yet: the class's tp_alloc, what
 * object.__new__ does for it (no abstract methods, no arguments), without the call through
 * Python. */
static PyObject *blank(PyObject *cls) {
  allocfunc alloc = (allocfunc)PyType_GetSlot((PyTypeObject *)cls, Py_tp_alloc);
  if (alloc == NULL) return PyObject_CallFunctionObjArgs(object_new, cls, NULL);
  return alloc((PyTypeObject *)cls, 0);
}

/* --- the answer ------------------------------------------------------------------------
 * Convention of the builders below: a new reference, or NULL with an exception set (a real
 * error), or NULL with none set: "not built here", and the whole answer is then handed to
 * Python's answer_from_json (which builds it, or raises what the pure path raises). */

/* d[key] (borrowed), NULL (no exception) when d lacks it. */
static PyObject *req(PyObject *d, int key) { return PyDict_GetItemWithError(d, keys[key]); }

/* d.get(key) as a new reference (None when absent). */
static PyObject *opt(PyObject *d, int key) {
  PyObject *v = PyDict_GetItemWithError(d, keys[key]);
  if (v == NULL) {
    if (PyErr_Occurred()) return NULL;
    v = Py_None;
  }
  Py_INCREF(v);
  return v;
}

/* Which kind word `k` is (W_*), -1 for anything else (absent, not a str, unknown). */
static int kind_of(PyObject *d) {
  PyObject *k = PyDict_GetItemWithError(d, keys[K_KIND]);
  if (k == NULL || !PyUnicode_CheckExact(k)) return -1;
  for (int w = 0; w < W_COUNT; w++) {
    if (k == kind_words[w]) return w;
    int eq = PyUnicode_Compare(k, kind_words[w]);
    if (eq == 0) return w;
    if (eq == -1 && PyErr_Occurred()) return -1;
  }
  return -1;
}

static setters answer_set[A_COUNT];
/* How many fields each class has (CLASS_FIELDS[c]'s length; 0 for FilePart). */
static int class_field_count[A_COUNT];

/* The attribute names of answer class `c`'s fields, in CLASS_FIELDS order (borrowed). */
static void answer_field_names(int c, PyObject **names) {
  const int *f = CLASS_FIELDS[c];
  for (int k = 0; f[k] >= 0; k++) names[k] = keys[f[k]];
}

/* An instance of answer class `c` with its fields (CLASS_FIELDS[c], in order) set to
 * `values` (stolen; a NULL among them means failure, see the convention above). */
static PyObject *make(int c, PyObject **values) {
  int n = class_field_count[c];
  for (int k = 0; k < n; k++)
    if (values[k] == NULL) {
      for (int j = 0; j < n; j++) Py_XDECREF(values[j]);
      return NULL;
    }
  PyObject *obj = answer_alloc[c]((PyTypeObject *)answer_cls[c], 0);
  if (obj == NULL) {
    for (int j = 0; j < n; j++) Py_DECREF(values[j]);
    return NULL;
  }
  PyObject *names[MAX_FIELDS];
  /* Only the setters use the names: none are needed where the slots are written directly. */
  if (!answer_set[c].direct || answer_set[c].n != n) answer_field_names(c, names);
  if (set_all(obj, names, &answer_set[c], values, n) < 0) {
    Py_DECREF(obj);
    return NULL;
  }
  return obj;
}

static PyObject *kind_value(int w) {
  Py_INCREF(kind_words[w]);
  return kind_words[w];
}

/* A required value (new reference); NULL without an exception when absent. */
static PyObject *need(PyObject *d, int key) {
  PyObject *v = req(d, key);
  Py_XINCREF(v);
  return v;
}

static PyObject *part(PyObject *d) {
  if (!PyDict_CheckExact(d)) return NULL;
  int w = kind_of(d);
  if (PyErr_Occurred()) return NULL;
  if (w != W_TEXT && w != W_DATA) return NULL; /* files (base64) and errors: Python */
  PyObject *v[5] = {need(d, w == W_TEXT ? K_TEXT : K_DATA), opt(d, K_METADATA),
                    opt(d, K_MEDIA_TYPE), opt(d, K_NAME), kind_value(w)};
  return make(w == W_TEXT ? A_TEXT : A_DATA, v);
}

/* tuple(build(x) for x in d[key]) for a list value. */
static PyObject *tuple_of(PyObject *d, int key, PyObject *(*build)(PyObject *)) {
  PyObject *list = req(d, key);
  if (list == NULL || !PyList_CheckExact(list)) return NULL;
  Py_ssize_t n = PyList_Size(list);
  PyObject *t = PyTuple_New(n);
  if (t == NULL) return NULL;
  for (Py_ssize_t k = 0; k < n; k++) {
    PyObject *x = build(PyList_GetItem(list, k));
    if (x == NULL) {
      Py_DECREF(t);
      return NULL;
    }
    PyTuple_SetItem(t, k, x);
  }
  return t;
}

static PyObject *message(PyObject *d) {
  if (!PyDict_CheckExact(d)) return NULL;
  PyObject *v[7] = {need(d, K_MESSAGE_ID), need(d, K_ROLE), tuple_of(d, K_PARTS, part),
                    opt(d, K_CONTEXT_ID), opt(d, K_TASK_ID), opt(d, K_METADATA),
                    kind_value(W_MESSAGE)};
  return make(A_MESSAGE, v);
}

/* `_message(m) if m else None` */
static PyObject *opt_message(PyObject *d) {
  PyObject *m = req(d, K_MESSAGE);
  if (m == NULL && PyErr_Occurred()) return NULL;
  int truth = m == NULL ? 0 : PyObject_IsTrue(m);
  if (truth < 0) return NULL;
  if (!truth) Py_RETURN_NONE;
  return message(m);
}

static PyObject *status(PyObject *d) {
  if (d == NULL || !PyDict_CheckExact(d)) return NULL;
  PyObject *v[3] = {need(d, K_STATE), opt_message(d), opt(d, K_TIMESTAMP)};
  return make(A_STATUS, v);
}

static PyObject *artifact(PyObject *d) {
  if (d == NULL || !PyDict_CheckExact(d)) return NULL;
  PyObject *v[5] = {need(d, K_ARTIFACT_ID), tuple_of(d, K_PARTS, part), opt(d, K_NAME),
                    opt(d, K_DESCRIPTION), opt(d, K_METADATA)};
  return make(A_ARTIFACT, v);
}

/* `bool(d.get(key))` */
static PyObject *flag(PyObject *d, int key) {
  PyObject *x = req(d, key);
  if (x == NULL && PyErr_Occurred()) return NULL;
  int truth = x == NULL ? 0 : PyObject_IsTrue(x);
  return truth < 0 ? NULL : new_bool(truth);
}

/* answer_from_json's four kinds. */
static PyObject *answer(PyObject *d) {
  if (!PyDict_CheckExact(d)) return NULL;
  switch (kind_of(d)) {
    case W_TASK: {
      PyObject *v[7] = {need(d, K_ID), opt(d, K_CONTEXT_ID), status(req(d, K_STATUS)),
                        tuple_of(d, K_ARTIFACTS, artifact), tuple_of(d, K_HISTORY, message),
                        opt(d, K_METADATA), kind_value(W_TASK)};
      return make(A_TASK, v);
    }
    case W_MESSAGE:
      return message(d);
    case W_STATUS_UPDATE: {
      PyObject *v[6] = {need(d, K_TASK_ID), opt(d, K_CONTEXT_ID), status(req(d, K_STATUS)),
                        flag(d, K_FINAL), opt(d, K_METADATA), kind_value(W_STATUS_UPDATE)};
      return make(A_STATUS_UPDATE, v);
    }
    case W_ARTIFACT_UPDATE: {
      PyObject *v[7] = {need(d, K_TASK_ID), opt(d, K_CONTEXT_ID), artifact(req(d, K_ARTIFACT)),
                        flag(d, K_APPEND), flag(d, K_LAST_CHUNK), opt(d, K_METADATA),
                        kind_value(W_ARTIFACT_UPDATE)};
      return make(A_ARTIFACT_UPDATE, v);
    }
    default:
      return NULL;
  }
}

/* --- the canonical JSON reader -------------------------------------------------------------
 * The answer's JSON is the library's canonical rendering (compact, keys from a fixed set,
 * strings escaped the library's way). Python's json scanner reads it for about 95
 * instructions a byte (measured with callgrind: 30k of a stream item's 84k for a 314-byte
 * artifact update), most of it hashing and memoising every key afresh. This reader builds the
 * same dicts, lists, strs, ints, bools and Nones from the text's UTF-8, the known keys taken
 * from the interned table (their hashes cached). It reads only what it is sure of: a float, an
 * int of more than 18 digits, a `\u` escape, a control byte, nesting deeper than 64 or
 * anything else unusual makes it give up (`bail`), and the json module reads the whole text
 * instead, so both always give the same value (tests/test_speedups.py compares them). */
typedef struct {
  const char *p, *end;
  int depth;
  bool bail;
} jreader;

static Py_ssize_t key_len[K_COUNT];
/* The known keys by length (KEY_BY_LEN_MAX bytes at most): `key_by_len[n]` lists the
 * indices of those `n` bytes long, -1 after the last. A key is found with a compare or two
 * instead of a scan of the whole table (callgrind: 3.9k instructions per stream item went to
 * the string reader, most of them that scan). */
#define KEY_BY_LEN_MAX 15
#define KEY_BY_LEN_SLOTS 8
static signed char key_by_len[KEY_BY_LEN_MAX + 1][KEY_BY_LEN_SLOTS];
/* The known keys by first byte, -1 after the last: a member's key is matched where it
 * stands (the candidate's bytes, then its closing quote) without first scanning for the
 * quote and measuring it (callgrind: that scan was about 1k instructions of a stream item's
 * artifact update, 17 keys). */
static signed char key_by_first[128][KEY_BY_LEN_SLOTS];
/* The bytes that end a string's plain run: the quote, the backslash, a control byte. */
static bool str_stop[256];

static void jr_space(jreader *r) {
  /* The canonical text has no white space: one test for the usual case. */
  if (r->p < r->end && (unsigned char)*r->p > ' ') return;
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t')) r->p++;
}

/* The first byte at or after `q` that ends a plain run (`end` when none does). */
static const char *str_run(const char *q, const char *end) {
  while (q < end && !str_stop[(unsigned char)*q]) q++;
  return q;
}

static PyObject *jr_give_up(jreader *r) {
  r->bail = true;
  return NULL;
}

/* A string whose opening quote was read; `as_key`: a known key comes from the table. */
static PyObject *jr_string(jreader *r, bool as_key) {
  const char *start = r->p, *q = str_run(r->p, r->end);
  if (q >= r->end || (unsigned char)*q < 0x20) return jr_give_up(r);
  if (*q == '"') {
    Py_ssize_t n = q - start;
    r->p = q + 1;
    if (as_key && n <= KEY_BY_LEN_MAX) {
      for (const signed char *k = key_by_len[n]; *k >= 0; k++)
        if (KEY_NAMES[*k][0] == start[0] && memcmp(KEY_NAMES[*k], start, (size_t)n) == 0) {
          Py_INCREF(keys[*k]);
          return keys[*k];
        }
    }
    return PyUnicode_DecodeUTF8(start, n, "strict");
  }
  /* Escapes: copied into a buffer with the simple ones undone (`\u` gives up). */
  Py_ssize_t cap = (r->end - start);
  char *buf = PyMem_Malloc((size_t)cap + 1);
  if (buf == NULL) return PyErr_NoMemory();
  Py_ssize_t n = 0;
  q = start;
  for (;;) {
    if (q >= r->end || (unsigned char)*q < 0x20) {
      PyMem_Free(buf);
      return jr_give_up(r);
    }
    char c = *q++;
    if (c == '"') break;
    if (c != '\\') {
      buf[n++] = c;
      continue;
    }
    if (q >= r->end) {
      PyMem_Free(buf);
      return jr_give_up(r);
    }
    switch (*q++) {
      case '"': buf[n++] = '"'; break;
      case '\\': buf[n++] = '\\'; break;
      case '/': buf[n++] = '/'; break;
      case 'b': buf[n++] = '\b'; break;
      case 'f': buf[n++] = '\f'; break;
      case 'n': buf[n++] = '\n'; break;
      case 'r': buf[n++] = '\r'; break;
      case 't': buf[n++] = '\t'; break;
      default:
        PyMem_Free(buf);
        return jr_give_up(r);
    }
  }
  r->p = q;
  PyObject *out = PyUnicode_DecodeUTF8(buf, n, "strict");
  PyMem_Free(buf);
  return out;
}

static PyObject *jr_value(jreader *r);

/* Skips white space, then takes `c` if it comes next. */
static bool jr_take(jreader *r, char c) {
  jr_space(r);
  if (r->p < r->end && *r->p == c) {
    r->p++;
    return true;
  }
  return false;
}

/* After a member or element: 1 at ',' (another follows), 0 at `close` (the container ends);
 * -1 (given up) at anything else. */
static int jr_next(jreader *r, char close) {
  if (jr_take(r, ',')) return 1;
  if (jr_take(r, close)) return 0;
  r->bail = true;
  return -1;
}

static PyObject *jr_object(jreader *r) {
  PyObject *d = PyDict_New();
  if (d == NULL) return NULL;
  if (jr_take(r, '}')) return d;
  for (;;) {
    if (!jr_take(r, '"')) {
      r->bail = true;
      break;
    }
    PyObject *k = jr_string(r, true);
    if (k == NULL) break;
    PyObject *v = jr_take(r, ':') ? jr_value(r) : jr_give_up(r);
    int rc = v == NULL ? -1 : PyDict_SetItem(d, k, v);
    Py_DECREF(k);
    Py_XDECREF(v);
    if (rc < 0) break;
    int next = jr_next(r, '}');
    if (next == 0) return d;
    if (next < 0) break;
  }
  Py_DECREF(d);
  return NULL;
}

static PyObject *jr_array(jreader *r) {
  PyObject *l = PyList_New(0);
  if (l == NULL) return NULL;
  if (jr_take(r, ']')) return l;
  for (;;) {
    PyObject *v = jr_value(r);
    int rc = v == NULL ? -1 : PyList_Append(l, v);
    Py_XDECREF(v);
    if (rc < 0) break;
    int next = jr_next(r, ']');
    if (next == 0) return l;
    if (next < 0) break;
  }
  Py_DECREF(l);
  return NULL;
}

/* An int of at most 18 digits (anything else gives up: the json module reads it). */
static PyObject *jr_number(jreader *r) {
  const char *q = r->p;
  bool neg = q < r->end && *q == '-';
  if (neg) q++;
  const char *digits = q;
  long long v = 0;
  while (q < r->end && *q >= '0' && *q <= '9') v = v * 10 + (*q++ - '0');
  Py_ssize_t n = q - digits;
  if (n == 0 || n > 18 || (n > 1 && *digits == '0')) return jr_give_up(r);
  if (q < r->end && (*q == '.' || *q == 'e' || *q == 'E')) return jr_give_up(r);
  r->p = q;
  return PyLong_FromLongLong(neg ? -v : v);
}

static bool jr_word(jreader *r, const char *w, size_t n) {
  if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n) != 0) return false;
  r->p += n;
  return true;
}

static PyObject *jr_value(jreader *r) {
  jr_space(r);
  if (r->p >= r->end) return jr_give_up(r);
  PyObject *v;
  switch (*r->p) {
    case '{':
      if (++r->depth > 64) return jr_give_up(r);
      r->p++;
      v = jr_object(r);
      r->depth--;
      return v;
    case '[':
      if (++r->depth > 64) return jr_give_up(r);
      r->p++;
      v = jr_array(r);
      r->depth--;
      return v;
    case '"':
      r->p++;
      return jr_string(r, false);
    case 't':
      if (jr_word(r, "true", 4)) Py_RETURN_TRUE;
      return jr_give_up(r);
    case 'f':
      if (jr_word(r, "false", 5)) Py_RETURN_FALSE;
      return jr_give_up(r);
    case 'n':
      if (jr_word(r, "null", 4)) Py_RETURN_NONE;
      return jr_give_up(r);
    default:
      if (*r->p == '-' || (*r->p >= '0' && *r->p <= '9')) return jr_number(r);
      return jr_give_up(r);
  }
}

/* The value of the whole text; NULL with no exception set when the reader gave up. */
static PyObject *canonical_json(PyObject *text) {
  Py_ssize_t len;
  const char *utf8 = PyUnicode_AsUTF8AndSize(text, &len); /* kept by `text` */
  if (utf8 == NULL) {
    PyErr_Clear(); /* lone surrogates: the json module's to read */
    return NULL;
  }
  jreader r = {utf8, utf8 + len, 0, false};
  PyObject *v = jr_value(&r);
  if (v != NULL) {
    jr_space(&r);
    if (r.p == r.end) return v;
    Py_DECREF(v);
    return NULL;
  }
  /* Never raised for a str's own UTF-8; should it be, the json module reads the text. */
  if (PyErr_Occurred() && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) PyErr_Clear();
  return NULL;
}

/* canonical_json(text: str) -> the value, or None where the reader gives up (for the tests:
 * compared with json.loads). */
static PyObject *sp_canonical_json(PyObject *self, PyObject *text) {
  (void)self;
  if (!PyUnicode_Check(text)) {
    PyErr_SetString(PyExc_TypeError, "canonical_json: text must be a str");
    return NULL;
  }
  PyObject *v = canonical_json(text);
  if (v == NULL && !PyErr_Occurred()) Py_RETURN_NONE;
  return v;
}

/* --- the answer straight from its text ---------------------------------------------------
 * The canonical JSON's objects read into a record (a value per known key, by the key's
 * index) instead of a dict, and each record built at once into its class: the class of a
 * nested object follows from the key holding it (`status`, `artifact`, `message`, the items
 * of `parts`, `artifacts` and `history`), the top one's from its `kind`. No dict is made for
 * the answer's own objects and no key is looked up by hash (callgrind: the dicts' creation,
 * filling, lookups and release were about a third of reading a stream item's answer).
 * Only values the builders above take as they are (metadata, data, strings, flags) are read
 * with jr_value. Anything else (an unknown or repeated key, a structure where a value is
 * expected or the reverse, a missing field, a file part, an unknown kind) gives up, and the
 * text is read by canonical_json + answer as before: the same objects or errors either way
 * (tests/test_speedups.py compares every fixture with Python's reader). */
/* K_COUNT <= 32: a record's keys fit its mask (checked at compile time). */
typedef char record_mask_fits[K_COUNT <= 32 ? 1 : -1];
/* `v[key]` is set when bit `key` of `has` is (the rest is never read: not cleared). */
typedef struct {
  uint32_t has;
  PyObject *v[K_COUNT];
} record;

static void rec_clear(record *rc) {
  uint32_t h = rc->has;
  for (int k = 0; h != 0; k++, h >>= 1)
    if (h & 1u) Py_DECREF(rc->v[k]);
  rc->has = 0;
}

/* A record's value (borrowed), NULL when absent. */
static PyObject *rec_get(const record *rc, int key) {
  return (rc->has >> key) & 1u ? rc->v[key] : NULL;
}

/* A record's value (new reference), None when absent. */
static PyObject *rec_opt(const record *rc, int key) {
  PyObject *v = rec_get(rc, key);
  if (v == NULL) v = Py_None;
  Py_INCREF(v);
  return v;
}

/* A required value (new reference); NULL without an exception when absent. */
static PyObject *rec_need(const record *rc, int key) {
  PyObject *v = rec_get(rc, key);
  Py_XINCREF(v);
  return v;
}

/* `bool(d.get(key))` */
static PyObject *rec_flag(const record *rc, int key) {
  PyObject *v = rec_get(rc, key);
  int truth = v == NULL ? 0 : v == Py_False ? 0 : v == Py_True ? 1 : PyObject_IsTrue(v);
  return truth < 0 ? NULL : new_bool(truth);
}

/* Which kind word the record's `kind` is (W_*), -1 for anything else. */
static int rec_kind(const record *rc) {
  PyObject *k = rec_get(rc, K_KIND);
  if (k == NULL) return -1;
  for (int w = 0; w < W_COUNT; w++)
    if (k == kind_words[w]) return w;
  return -1;
}

/* A structured value's builder: the object after its '{' was read (a record read, then
 * built), or the list after its '['. */
typedef PyObject *(*rec_build)(const record *);
static PyObject *tr_record(jreader *r, rec_build build);
static PyObject *tr_list(jreader *r, rec_build build);

static PyObject *rb_part(const record *rc) {
  int w = rec_kind(rc);
  if (w != W_TEXT && w != W_DATA) return NULL;
  PyObject *v[5] = {rec_need(rc, w == W_TEXT ? K_TEXT : K_DATA), rec_opt(rc, K_METADATA),
                    rec_opt(rc, K_MEDIA_TYPE), rec_opt(rc, K_NAME), kind_value(w)};
  return make(w == W_TEXT ? A_TEXT : A_DATA, v);
}

static PyObject *rb_message(const record *rc) {
  PyObject *v[7] = {rec_need(rc, K_MESSAGE_ID), rec_need(rc, K_ROLE), rec_need(rc, K_PARTS),
                    rec_opt(rc, K_CONTEXT_ID), rec_opt(rc, K_TASK_ID), rec_opt(rc, K_METADATA),
                    kind_value(W_MESSAGE)};
  return make(A_MESSAGE, v);
}

static PyObject *rb_status(const record *rc) {
  /* `message`: None (null) or a Message (read as one); an empty object gave up. */
  PyObject *v[3] = {rec_need(rc, K_STATE), rec_opt(rc, K_MESSAGE), rec_opt(rc, K_TIMESTAMP)};
  return make(A_STATUS, v);
}

static PyObject *rb_artifact(const record *rc) {
  PyObject *v[5] = {rec_need(rc, K_ARTIFACT_ID), rec_need(rc, K_PARTS), rec_opt(rc, K_NAME),
                    rec_opt(rc, K_DESCRIPTION), rec_opt(rc, K_METADATA)};
  return make(A_ARTIFACT, v);
}

static PyObject *rb_answer(const record *rc) {
  switch (rec_kind(rc)) {
    case W_TASK: {
      PyObject *v[7] = {rec_need(rc, K_ID), rec_opt(rc, K_CONTEXT_ID), rec_need(rc, K_STATUS),
                        rec_need(rc, K_ARTIFACTS), rec_need(rc, K_HISTORY),
                        rec_opt(rc, K_METADATA), kind_value(W_TASK)};
      return make(A_TASK, v);
    }
    case W_MESSAGE:
      return rb_message(rc);
    case W_STATUS_UPDATE: {
      PyObject *v[6] = {rec_need(rc, K_TASK_ID), rec_opt(rc, K_CONTEXT_ID), rec_need(rc, K_STATUS),
                        rec_flag(rc, K_FINAL), rec_opt(rc, K_METADATA), kind_value(W_STATUS_UPDATE)};
      return make(A_STATUS_UPDATE, v);
    }
    case W_ARTIFACT_UPDATE: {
      PyObject *v[7] = {rec_need(rc, K_TASK_ID), rec_opt(rc, K_CONTEXT_ID), rec_need(rc, K_ARTIFACT),
                        rec_flag(rc, K_APPEND), rec_flag(rc, K_LAST_CHUNK), rec_opt(rc, K_METADATA),
                        kind_value(W_ARTIFACT_UPDATE)};
      return make(A_ARTIFACT_UPDATE, v);
    }
    default:
      return NULL;
  }
}

/* The known key whose opening quote was read, as its index; -1 (given up) for any other. */
static int tr_key(jreader *r) {
  const char *start = r->p;
  Py_ssize_t room = r->end - start;
  if (room <= 0 || (unsigned char)*start >= 128) return -1;
  /* A known key has neither a quote nor a backslash: its bytes then a quote are the whole
   * key, exactly when a scan to the quote would have found it. */
  for (const signed char *k = key_by_first[(unsigned char)*start]; *k >= 0; k++) {
    Py_ssize_t n = key_len[*k];
    if (n < room && start[n] == '"' && memcmp(KEY_NAMES[*k], start, (size_t)n) == 0) {
      r->p = start + n + 1;
      return *k;
    }
  }
  return -1;
}

/* A `kind` value: the interned kind word when it is one (as rec_kind compares), else the
 * string as jr_value reads it. */
static PyObject *tr_kind(jreader *r) {
  jr_space(r);
  if (r->p < r->end && *r->p == '"') {
    const char *start = r->p + 1, *q = str_run(start, r->end);
    if (q < r->end && *q == '"') {
      size_t n = (size_t)(q - start);
      for (int w = 0; w < W_COUNT; w++)
        if (strlen(KIND_WORDS[w]) == n && memcmp(KIND_WORDS[w], start, n) == 0) {
          r->p = q + 1;
          return kind_value(w);
        }
    }
  }
  return jr_value(r);
}

/* A string value with no escape through a memo, else as jr_value reads it. */
static PyObject *tr_memo(jreader *r, str_memo *m) {
  jr_space(r);
  if (r->p < r->end && *r->p == '"') {
    const char *start = r->p + 1, *q = str_run(start, r->end);
    if (q < r->end && *q == '"') {
      PyObject *s = memo_str(m, start, q - start);
      if (s != NULL) {
        r->p = q + 1;
        return s;
      }
    }
  }
  return jr_value(r);
}

/* A member's value by its key: a structure of the answer built as its class, else as
 * jr_value reads it. NULL: given up (r->bail) or an error. */
static PyObject *tr_member(jreader *r, int key) {
  rec_build one = NULL, many = NULL;
  switch (key) {
    case K_KIND: return tr_kind(r);
    case K_TASK_ID: return tr_memo(r, &memo_task_id);
    case K_CONTEXT_ID: return tr_memo(r, &memo_context_id);
    case K_STATUS: one = rb_status; break;
    case K_ARTIFACT: one = rb_artifact; break;
    case K_MESSAGE:
      one = rb_message;
      if (jr_take(r, 'n')) {
        r->p--;
        return jr_value(r); /* null, or gives up */
      }
      break;
    case K_PARTS: many = rb_part; break;
    case K_ARTIFACTS: many = rb_artifact; break;
    case K_HISTORY: many = rb_message; break;
    default:
      jr_space(r);
      if (r->end - r->p >= 4 && memcmp(r->p, "null", 4) == 0) {
        r->p += 4;
        Py_RETURN_NONE;
      }
      return jr_value(r);
  }
  if (one != NULL) return jr_take(r, '{') ? tr_record(r, one) : jr_give_up(r);
  return jr_take(r, '[') ? tr_list(r, many) : jr_give_up(r);
}

static PyObject *tr_record(jreader *r, rec_build build) {
  if (++r->depth > 64) return jr_give_up(r);
  record rc;
  rc.has = 0;
  PyObject *out = NULL;
  if (!jr_take(r, '}')) {
    for (;;) {
      int key = jr_take(r, '"') ? tr_key(r) : -1;
      if (key < 0 || ((rc.has >> key) & 1u) || !jr_take(r, ':')) {
        r->bail = true;
        goto done;
      }
      PyObject *v = tr_member(r, key);
      if (v == NULL) goto done;
      rc.v[key] = v;
      rc.has |= 1u << key;
      int next = jr_next(r, '}');
      if (next == 0) break;
      if (next < 0) goto done;
    }
  }
  out = build(&rc);
  if (out == NULL && !PyErr_Occurred()) r->bail = true;
done:
  rec_clear(&rc);
  r->depth--;
  return out;
}

/* The list after its '[' as a tuple of its objects, each read with tr_record. */
static PyObject *tr_list(jreader *r, rec_build build) {
  PyObject *items[16], **all = items;
  Py_ssize_t n = 0, cap = 16;
  PyObject *out = NULL;
  if (!jr_take(r, ']')) {
    for (;;) {
      PyObject *x = jr_take(r, '{') ? tr_record(r, build) : jr_give_up(r);
      if (x == NULL) goto done;
      if (n == cap) {
        PyObject **grown = PyMem_Malloc(sizeof(PyObject *) * (size_t)cap * 2);
        if (grown == NULL) {
          Py_DECREF(x);
          PyErr_NoMemory();
          goto done;
        }
        memcpy(grown, all, sizeof(PyObject *) * (size_t)n);
        if (all != items) PyMem_Free(all);
        all = grown;
        cap *= 2;
      }
      all[n++] = x;
      int next = jr_next(r, ']');
      if (next == 0) break;
      if (next < 0) goto done;
    }
  }
  out = PyTuple_New(n);
  if (out != NULL) {
    for (Py_ssize_t k = 0; k < n; k++) PyTuple_SetItem(out, k, all[k]); /* steals */
    n = 0;
  }
done:
  for (Py_ssize_t k = 0; k < n; k++) Py_DECREF(all[k]);
  if (all != items) PyMem_Free(all);
  return out;
}

/* --- a stream's usual chunk by its template -----------------------------------------------
 * Most of a streamed answer's items are artifact updates of one text part and nothing else
 * (an agent's output, chunk by chunk), and the library renders each the same way: fixed
 * text around two flags and four strings. Such a text is matched against that template
 * here (the literal parts compared, the strings taken as plain runs) and its objects built
 * at once, as tr_record builds them from the same text; anything else (another key, a
 * value not null where the template has null, an escape in a string, other white space)
 * fails the match and the reader above reads it. callgrind: ~5.8k -> ~1.5k instructions per
 * stream item of the blocking Client's bench. */
typedef struct {
  const char *p, *end;
} cursor;

/* Takes the literal `lit` (of length n) if the text goes on with it. */
static bool tm_lit(cursor *c, const char *lit, size_t n) {
  if ((size_t)(c->end - c->p) < n || memcmp(c->p, lit, n) != 0) return false;
  c->p += n;
  return true;
}
#define TM_LIT(c, s) tm_lit((c), (s), sizeof(s) - 1)

/* Takes `true` or `false`. */
static bool tm_bool(cursor *c, bool *out) {
  if (TM_LIT(c, "true")) return (*out = true);
  *out = false;
  return TM_LIT(c, "false");
}

/* A string's plain run after its opening quote, up to (and taking) its closing quote;
 * false at an escape or a control byte (the reader above reads those). */
static bool tm_str(cursor *c, const char **start, Py_ssize_t *n) {
  const char *q = str_run(c->p, c->end);
  if (q >= c->end || *q != '"') return false;
  *start = c->p;
  *n = q - c->p;
  c->p = q + 1;
  return true;
}

/* A plain string as jr_string reads it (strict UTF-8), through `m` when given (as tr_memo). */
static PyObject *tm_text(const char *p, Py_ssize_t n, str_memo *m) {
  PyObject *s = m != NULL ? memo_str(m, p, n) : NULL;
  return s != NULL ? s : PyUnicode_DecodeUTF8(p, n, "strict");
}

/* The artifact update of one text part in the template's text, or NULL with no exception
 * set when the text is not that (or a string is not UTF-8: the reader above decides). */
static PyObject *chunk_answer(const char *p, Py_ssize_t len) {
  cursor c = {p, p + len};
  bool append, last_chunk;
  const char *id, *text, *ctx, *task;
  Py_ssize_t id_n, text_n, ctx_n, task_n;
  if (!(TM_LIT(&c, "{\"append\":") && tm_bool(&c, &append) &&
        TM_LIT(&c, ",\"artifact\":{\"artifact_id\":\"") && tm_str(&c, &id, &id_n) &&
        TM_LIT(&c, ",\"description\":null,\"metadata\":null,\"name\":null,\"parts\":"
                   "[{\"kind\":\"text\",\"media_type\":null,\"metadata\":null,\"name\":null,"
                   "\"text\":\"") &&
        tm_str(&c, &text, &text_n) && TM_LIT(&c, "}]},\"context_id\":\"") &&
        tm_str(&c, &ctx, &ctx_n) &&
        TM_LIT(&c, ",\"kind\":\"artifact-update\",\"last_chunk\":") &&
        tm_bool(&c, &last_chunk) && TM_LIT(&c, ",\"metadata\":null,\"task_id\":\"") &&
        tm_str(&c, &task, &task_n) && TM_LIT(&c, "}") && c.p == c.end))
    return NULL;
  /* The strings first: one that is not UTF-8 leaves the text to the reader above. */
  PyObject *str[4] = {tm_text(text, text_n, NULL), tm_text(id, id_n, NULL),
                      tm_text(task, task_n, &memo_task_id), NULL};
  if (str[0] != NULL && str[1] != NULL && str[2] != NULL)
    str[3] = tm_text(ctx, ctx_n, &memo_context_id);
  if (str[3] == NULL) {
    for (int k = 0; k < 4; k++) Py_XDECREF(str[k]);
    if (PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) PyErr_Clear();
    return NULL;
  }
  PyObject *part[5] = {str[0], (Py_INCREF(Py_None), Py_None), (Py_INCREF(Py_None), Py_None),
                       (Py_INCREF(Py_None), Py_None), kind_value(W_TEXT)};
  PyObject *tp = make(A_TEXT, part);
  PyObject *parts = tp != NULL ? PyTuple_New(1) : NULL;
  if (parts == NULL)
    Py_XDECREF(tp);
  else
    PyTuple_SetItem(parts, 0, tp); /* steals */
  PyObject *artifact[5] = {str[1], parts, (Py_INCREF(Py_None), Py_None),
                           (Py_INCREF(Py_None), Py_None), (Py_INCREF(Py_None), Py_None)};
  PyObject *update[7] = {str[2], str[3], make(A_ARTIFACT, artifact), new_bool(append),
                         new_bool(last_chunk), (Py_INCREF(Py_None), Py_None),
                         kind_value(W_ARTIFACT_UPDATE)};
  PyObject *out = make(A_ARTIFACT_UPDATE, update);
  /* make's NULL without an exception ("not built here") never happens for these classes
   * (setup bound them); should it, the reader above reads the text. */
  return out;
}

/* chunk_answer(text: str) -> the answer when the text is on the template, else None (for
 * the tests: which texts take this path). */
static PyObject *sp_chunk_answer(PyObject *self, PyObject *text) {
  (void)self;
  Py_ssize_t len;
  const char *utf8 = PyUnicode_Check(text) ? PyUnicode_AsUTF8AndSize(text, &len) : NULL;
  if (utf8 == NULL) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "chunk_answer: text must be a str");
    return NULL;
  }
  if (answer_cls[A_TASK] == NULL) Py_RETURN_NONE;
  PyObject *v = chunk_answer(utf8, len);
  if (v == NULL && !PyErr_Occurred()) Py_RETURN_NONE;
  return v;
}

/* The answer read straight from the text (a str, or the library's UTF-8 as bytes); NULL
 * with no exception set when it gave up. */
static PyObject *typed_answer(PyObject *text) {
  if (answer_cls[A_TASK] == NULL) return NULL;
  Py_ssize_t len;
  char *raw;
  const char *utf8;
  if (PyBytes_Check(text))
    utf8 = PyBytes_AsStringAndSize(text, &raw, &len) == 0 ? raw : NULL;
  else
    utf8 = PyUnicode_AsUTF8AndSize(text, &len); /* kept by `text` */
  if (utf8 == NULL) {
    PyErr_Clear();
    return NULL;
  }
  PyObject *v = chunk_answer(utf8, len);
  if (v != NULL || PyErr_Occurred()) return v;
  jreader r = {utf8, utf8 + len, 0, false};
  v = jr_take(&r, '{') ? tr_record(&r, rb_answer) : NULL;
  if (v != NULL) {
    jr_space(&r);
    if (r.p == r.end) return v;
    Py_DECREF(v);
    return NULL;
  }
  /* Given up, or a str's own UTF-8 refused (never, as in canonical_json): the other path
   * reads it. Any other exception is a real error. */
  if (PyErr_Occurred() && (r.bail || PyErr_ExceptionMatches(PyExc_UnicodeDecodeError))) PyErr_Clear();
  return NULL;
}

/* The answer from its canonical JSON text: parsed by the json module's scanner (the value
 * must fill the text), built here; whatever is not read or built here goes to read_answer
 * (Python's reader of the text), so both paths give the same objects and errors. */
static PyObject *answer_from_text(PyObject *text) {
  PyObject *typed = typed_answer(text);
  if (typed != NULL || PyErr_Occurred()) return typed;
  if (PyBytes_Check(text)) { /* the rest read a str: the text decoded as view_str does */
    char *raw;
    Py_ssize_t len;
    if (PyBytes_AsStringAndSize(text, &raw, &len) < 0) return NULL;
    PyObject *str = PyUnicode_DecodeUTF8(raw, len, "replace");
    if (str == NULL) return NULL;
    PyObject *a = answer_from_text(str);
    Py_DECREF(str);
    return a;
  }
  PyObject *parsed = canonical_json(text);
  if (parsed != NULL) {
    PyObject *a = answer(parsed);
    if (a == NULL && !PyErr_Occurred()) a = PyObject_CallFunctionObjArgs(answer_from_dict, parsed, NULL);
    Py_DECREF(parsed);
    return a;
  }
  if (PyErr_Occurred()) return NULL;
  if (scan_json != NULL) {
    PyObject *zero = PyLong_FromLong(0);
    PyObject *r = zero ? PyObject_CallFunctionObjArgs(scan_json, text, zero, NULL) : NULL;
    Py_XDECREF(zero);
    if (r == NULL) {
      if (!PyErr_ExceptionMatches(PyExc_StopIteration) && !PyErr_ExceptionMatches(PyExc_ValueError))
        return NULL;
      PyErr_Clear();
    } else {
      PyObject *d = PyTuple_Check(r) && PyTuple_Size(r) == 2 ? PyTuple_GetItem(r, 0) : NULL;
      Py_ssize_t end = d ? PyLong_AsSsize_t(PyTuple_GetItem(r, 1)) : -1;
      if (end == -1 && PyErr_Occurred()) {
        Py_DECREF(r);
        return NULL;
      }
      if (d != NULL && end == PyUnicode_GetLength(text)) {
        PyObject *a = answer(d);
        if (a == NULL && !PyErr_Occurred())
          a = PyObject_CallFunctionObjArgs(answer_from_dict, d, NULL);
        Py_DECREF(r);
        return a;
      }
      Py_DECREF(r);
    }
  }
  return PyObject_CallFunctionObjArgs(read_answer, text, NULL);
}

/* answer(text: str) -> the answer (for the tests: compared with Python's reader). */
static PyObject *sp_answer(PyObject *self, PyObject *text) {
  (void)self;
  if (!PyUnicode_Check(text)) {
    PyErr_SetString(PyExc_TypeError, "answer: text must be a str");
    return NULL;
  }
  return answer_from_text(text);
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
  PyObject *result, *result_text = Py_None;
  Py_INCREF(result_text);
  if (i.result_json.ptr != NULL) {
    /* Kept unread: the library's UTF-8 as bytes, a copy (a str was a decode of the whole
     * text, about 0.9k instructions per stream item; callgrind). */
    PyObject *text = unread != NULL
                         ? PyBytes_FromStringAndSize(i.result_json.ptr, (Py_ssize_t)i.result_json.len)
                         : view_str(i.result_json);
    if (text != NULL && unread != NULL) {
      result = unread; /* read on first access */
      Py_INCREF(result);
      Py_DECREF(result_text);
      result_text = text;
    } else {
      result = text ? answer_from_text(text) : NULL;
      Py_XDECREF(text);
    }
    if (result == NULL) {
      Py_DECREF(hint);
      Py_DECREF(result_text);
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
  v[O_TASK_ID] = memo_view(&memo_task_id, i.task_id);
  v[O_CONTEXT_ID] = memo_view(&memo_context_id, i.context_id);
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
  v[O_RESULT_TEXT] = result_text;
  PyObject *obj = blank(outcome_cls);
  if (obj == NULL) {
    for (int k = 0; k < O_COUNT; k++) Py_XDECREF(v[k]);
    return NULL;
  }
  if (set_all(obj, outcome_names, &outcome_set, v, O_COUNT) < 0) {
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

/* A StreamItem from an `a2a_stream_item` and its outcome (borrowed: copied now). */
static PyObject *item_from(const a2a_stream_item *it, const a2a_outcome *outcome) {
  PyObject *v[I_COUNT];
  v[I_KIND] = word(t_item_kind, it->kind);
  v[I_OUTCOME] = outcome_from(outcome, Py_None);
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
  if (set_all(obj, item_names, &item_set, v, I_COUNT) < 0) {
    Py_DECREF(obj);
    return NULL;
  }
  return obj;
}

/* The most items one `poll_items` or `step_items` call hands out: a batch of hundreds kept
 * every item of a long stream alive until the caller had seen them all, and the collector's
 * young-generation passes over them cost more than the batching saved (callgrind, AsyncClient
 * bench). */
#ifndef POLL_ITEMS_MAX
#define POLL_ITEMS_MAX 16
#endif

static bool call_and_event(PyObject *const *args, struct a2a_call **call, a2a_event **ev);
static PyObject *not_an_item(a2a_result rc, const a2a_event *ev);

/* The StreamItem of the ITEM event `ev` appended to `items`: 0, or -1 with an exception set. */
static int append_item(PyObject *items, const a2a_event *ev) {
  PyObject *item = item_from(&ev->item, ev->outcome);
  if (item == NULL) return -1;
  int bad = PyList_Append(items, item);
  Py_DECREF(item);
  return bad;
}

/* step_items(call: int, transport: int, now_ms: int, event: int, now_out: int, items: list)
 *   -> int
 * Steps of a client-machine call on the reference driver's transport, for the blocking
 * Client: the events the call has queued, polled into the caller's `a2a_event` at address
 * `event` (its views valid until the next mutating call on the call); when none is queued,
 * one `a2a_call_run` first (the GIL released while it blocks; header hooks, called from
 * inside it, take the GIL themselves). Every ITEM's StreamItem, built here, is appended to
 * `items` (up to POLL_ITEMS_MAX: a stream's items arrive several per read, and one call here
 * hands them all to Python), until the first event that is not an ITEM. Returns that event's
 * `a2a_event_kind`, 0 when no more is queued, minus the result code when the library
 * refused, or A2A_EVENT_KIND_ITEM when it stopped at POLL_ITEMS_MAX items (more may be
 * queued). The `uint64_t` at `now_out` receives the run's clock (unchanged when no run was
 * made). At most one run per call, and only before any item. */
static PyObject *sp_step_items(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  (void)self;
  if (nargs != 6 || !PyList_CheckExact(args[5])) {
    PyErr_SetString(PyExc_TypeError,
                    "step_items(call, transport, now_ms, event, now_out, items: list) takes 6 arguments");
    return NULL;
  }
  PyObject *const pargs[2] = {args[0], args[3]};
  struct a2a_call *call;
  a2a_event *ev;
  if (!call_and_event(pargs, &call, &ev)) return NULL;
  const struct a2a_transport *transport = as_ptr(args[1]);
  if (transport == NULL) return NULL;
  unsigned long long now = PyLong_AsUnsignedLongLong(args[2]);
  if (now == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
  uint64_t *now_out = as_ptr(args[4]);
  if (now_out == NULL) return NULL;
  PyObject *items = args[5];
  for (Py_ssize_t n = 0; n < POLL_ITEMS_MAX; n++) {
    a2a_result rc = a2a_call_poll_event(call, ev);
    if (rc == A2A_NONE && n == 0) {
      Py_BEGIN_ALLOW_THREADS
      rc = a2a_call_run(call, transport, NULL, (uint64_t)now, now_out);
      if (rc == A2A_OK) rc = a2a_call_poll_event(call, ev);
      Py_END_ALLOW_THREADS
    }
    if (rc != A2A_OK || ev->kind != A2A_EVENT_KIND_ITEM) return not_an_item(rc, ev);
    if (append_item(items, ev) < 0) return NULL;
  }
  return PyLong_FromUnsignedLong((unsigned long)A2A_EVENT_KIND_ITEM);
}

/* The call and the caller's `a2a_event` that `poll` and `poll_items` take as their first
 * two arguments (addresses, as ints); false with an exception set when one is not. */
static bool call_and_event(PyObject *const *args, struct a2a_call **call, a2a_event **ev) {
  *call = as_ptr(args[0]);
  if (*call == NULL) return false;
  *ev = as_ptr(args[1]);
  return *ev != NULL;
}

/* What `poll` and `poll_items` return for a poll that did not give an ITEM: 0 when none is
 * queued, minus the result code when the library refused, else the event's kind. */
static PyObject *not_an_item(a2a_result rc, const a2a_event *ev) {
  if (rc == A2A_NONE) return PyLong_FromLong(0);
  if (rc != A2A_OK) return PyLong_FromLong(-(long)rc);
  return PyLong_FromUnsignedLong((unsigned long)ev->kind);
}

/* poll(call: int, event: int) -> StreamItem | int
 * The next event a client-machine call has queued, polled into the caller's `a2a_event` at
 * address `event` (its views valid until the next mutating call on the call), for a host
 * that performs the requests itself (AsyncClient's): an ITEM's StreamItem, built here; any
 * other event's `a2a_event_kind`; 0 when none is queued; minus the result code when the
 * library refused. `step_items` without the run, one event at a time. */
static PyObject *sp_poll(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  (void)self;
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "poll(call, event) takes 2 arguments");
    return NULL;
  }
  struct a2a_call *call;
  a2a_event *ev;
  if (!call_and_event(args, &call, &ev)) return NULL;
  a2a_result rc = a2a_call_poll_event(call, ev);
  if (rc == A2A_OK && ev->kind == A2A_EVENT_KIND_ITEM) return item_from(&ev->item, ev->outcome);
  return not_an_item(rc, ev);
}


/* poll_items(call: int, event: int, items: list) -> int
 * `poll` until the next event that is not an ITEM: every ITEM's StreamItem is appended to
 * `items` (a stream's items usually arrive several per body chunk, and one call here hands
 * up to POLL_ITEMS_MAX of them to Python), and that event's `a2a_event_kind` (in the caller's
 * `a2a_event` at `event`, its views valid until the next mutating call on the call), 0 when
 * none is queued, minus the result code when the library refused, or A2A_EVENT_KIND_ITEM
 * when it stopped at POLL_ITEMS_MAX items (more may be queued) is returned. */
static PyObject *sp_poll_items(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  (void)self;
  if (nargs != 3 || !PyList_CheckExact(args[2])) {
    PyErr_SetString(PyExc_TypeError, "poll_items(call, event, items: list) takes 3 arguments");
    return NULL;
  }
  struct a2a_call *call;
  a2a_event *ev;
  if (!call_and_event(args, &call, &ev)) return NULL;
  PyObject *items = args[2];
  for (Py_ssize_t n = 0; n < POLL_ITEMS_MAX; n++) {
    a2a_result rc = a2a_call_poll_event(call, ev);
    if (rc != A2A_OK || ev->kind != A2A_EVENT_KIND_ITEM) return not_an_item(rc, ev);
    if (append_item(items, ev) < 0) return NULL;
  }
  return PyLong_FromUnsignedLong((unsigned long)A2A_EVENT_KIND_ITEM);
}

/* The chunked-body states of `_asyncio_http`'s connection parser (its `_SIZE`, `_DATA` and
 * `_DATA_END`; test_speedups checks that they match). */
#define CHUNK_SIZE_LINE 4
#define CHUNK_DATA 5
#define CHUNK_DATA_END 6

/* The value of a hex digit, or -1. */
static int hex_value(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* dechunk(buf: bytearray, state: int, remaining: int) -> (data: bytes, used: int, state: int,
 *                                                         remaining: int)
 * The well-formed part of a chunked body at the front of `buf`, for AsyncClient's HTTP/1.1
 * parser: chunk data (`remaining` bytes of the current chunk left), the CRLF after it and
 * chunk-size lines of plain hex digits, as far as they go. Returns every data byte taken,
 * joined; how many bytes of `buf` were used; and the state and `remaining` after them. It
 * stops, using nothing more, at whatever it does not take whole: a line not yet complete, a
 * chunk extension or white space, a size over 15 digits, the last chunk (trailers follow),
 * a missing CRLF. The Python parser goes on from there, and judges (and refuses) what is
 * not well-formed, so the errors are its own. Up to 256 chunks per call. */
static PyObject *sp_dechunk(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  (void)self;
  if (nargs != 3 || !PyByteArray_Check(args[0])) {
    PyErr_SetString(PyExc_TypeError, "dechunk(buf: bytearray, state, remaining) takes 3 arguments");
    return NULL;
  }
  long state = PyLong_AsLong(args[1]);
  if (state == -1 && PyErr_Occurred()) return NULL;
  long long remaining = PyLong_AsLongLong(args[2]);
  if (remaining == -1 && PyErr_Occurred()) return NULL;
  const unsigned char *p = (const unsigned char *)PyByteArray_AsString(args[0]);
  Py_ssize_t len = PyByteArray_Size(args[0]);
  if (p == NULL || len < 0) return NULL;
  struct { Py_ssize_t at, n; } spans[256];
  int count = 0;
  Py_ssize_t i = 0, total = 0;
  while (i < len && count < 256) {
    if (state == CHUNK_DATA) {
      Py_ssize_t take = len - i;
      if ((long long)take > remaining) take = (Py_ssize_t)remaining;
      spans[count].at = i;
      spans[count].n = take;
      count++;
      total += take;
      i += take;
      remaining -= take;
      if (remaining == 0) state = CHUNK_DATA_END;
    } else if (state == CHUNK_DATA_END) {
      if (len - i < 2 || p[i] != '\r' || p[i + 1] != '\n') break;
      i += 2;
      state = CHUNK_SIZE_LINE;
    } else if (state == CHUNK_SIZE_LINE) {
      Py_ssize_t j = i;
      long long size = 0;
      int digits = 0, d;
      while (j < len && digits <= 15 && (d = hex_value(p[j])) >= 0) {
        size = size * 16 + d;
        j++;
        digits++;
      }
      if (digits == 0 || digits > 15 || size == 0) break;
      if (j < len && p[j] == '\r') j++;
      if (j >= len || p[j] != '\n') break;
      i = j + 1;
      state = CHUNK_DATA;
      remaining = size;
    } else {
      break;
    }
  }
  PyObject *data = PyBytes_FromStringAndSize(NULL, total);
  if (data == NULL) return NULL;
  char *dst = PyBytes_AsString(data);
  if (dst == NULL) {
    Py_DECREF(data);
    return NULL;
  }
  for (int k = 0; k < count; k++) {
    memcpy(dst, p + spans[k].at, (size_t)spans[k].n);
    dst += spans[k].n;
  }
  return Py_BuildValue("(NnlL)", data, i, state, remaining);
}

/* unary(state: int, method: int, text: str | None, params: bytes | None, settings: int | None,
 *       transport: int, now_ms: int, owner_cls) -> Outcome | int
 * A whole non-streaming call of the client machine on the reference driver's transport, in
 * one call: made (`a2a_call_new_text` for `text`, else `a2a_call_new` of `method` with
 * `params`), run (`a2a_call_run`, the GIL released while it blocks; header hooks take it
 * themselves) until its FINISHED event, whose Outcome is built here. RETRYING events are
 * passed over (Python's generic path, used when debug logging is on, logs them). The
 * finished call is owned by `owner_cls(outcome, call)`, the Outcome's `_owned` (it frees
 * the call when collected; the outcome is borrowed from it). On a library refusal the call
 * is freed and minus the result code returned. */
static PyObject *sp_unary(PyObject *self, PyObject *args) {
  PyObject *st, *text, *params, *set, *t, *owner_cls;
  unsigned int method;
  unsigned long long now;
  (void)self;
  if (!PyArg_ParseTuple(args, "OIOOOOKO", &st, &method, &text, &params, &set, &t, &now,
                        &owner_cls))
    return NULL;
  const struct a2a_client_state *state = as_ptr(st);
  if (state == NULL) return NULL;
  const struct a2a_transport *transport = as_ptr(t);
  if (transport == NULL) return NULL;
  const struct a2a_call_settings *settings = NULL;
  if (set != Py_None && (settings = as_ptr(set)) == NULL) return NULL;
  struct a2a_call *call = NULL;
  a2a_result rc;
  if (text != Py_None) {
    Py_ssize_t len;
    const char *utf8 = PyUnicode_AsUTF8AndSize(text, &len); /* kept by `text` */
    if (utf8 == NULL) return NULL;
    rc = a2a_call_new_text(state, false, utf8, (size_t)len, settings, (uint64_t)now, &call);
  } else {
    const char *body = NULL;
    Py_ssize_t len = 0;
    if (params != Py_None && PyBytes_AsStringAndSize(params, (char **)&body, &len) < 0)
      return NULL;
    rc = a2a_call_new(state, method, (const uint8_t *)body, (size_t)len, settings,
                      (uint64_t)now, &call);
  }
  if (rc != A2A_OK) return PyLong_FromLong(-(long)rc);
  a2a_event ev;
  uint64_t clock = (uint64_t)now;
  for (;;) {
    Py_BEGIN_ALLOW_THREADS
    rc = a2a_call_poll_event(call, &ev);
    if (rc == A2A_NONE) {
      rc = a2a_call_run(call, transport, NULL, clock, &clock);
      if (rc == A2A_OK) rc = a2a_call_poll_event(call, &ev);
    }
    Py_END_ALLOW_THREADS
    if (rc == A2A_NONE) continue;
    if (rc != A2A_OK) break;
    if (ev.kind == A2A_EVENT_KIND_FINISHED) break;
  }
  if (rc != A2A_OK || ev.outcome == NULL) {
    a2a_call_free(call);
    if (rc == A2A_OK) {
      PyErr_SetString(PyExc_RuntimeError, "a call finished without an outcome");
      return NULL;
    }
    return PyLong_FromLong(-(long)rc);
  }
  PyObject *o = PyLong_FromVoidPtr((void *)ev.outcome);
  PyObject *c = o ? PyLong_FromVoidPtr(call) : NULL;
  PyObject *owner = c ? PyObject_CallFunctionObjArgs(owner_cls, o, c, NULL) : NULL;
  Py_XDECREF(o);
  Py_XDECREF(c);
  if (owner == NULL) {
    a2a_call_free(call);
    return NULL;
  }
  PyObject *outcome = outcome_from(ev.outcome, owner); /* the owner frees the call */
  Py_DECREF(owner);
  return outcome;
}

/* a2a_call_free(call: int) -> None: the library's own, for the handle holder of the Outcomes
 * `unary` returns (a plain C call where a ctypes one costs several thousand instructions). */
static PyObject *sp_call_free(PyObject *self, PyObject *p) {
  (void)self;
  void *call = PyLong_AsVoidPtr(p);
  if (call == NULL && PyErr_Occurred()) return NULL;
  a2a_call_free(call);
  Py_RETURN_NONE;
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

/* One Event (a NamedTuple: a tuple subclass) of three str, stolen. Either tuple's own
 * constructor, as `tuple.__new__(Event, (t, d, i))` does, or (event_alloc) what that
 * constructor does for a subclass, without its temporary tuples. */
static PyObject *make_event(PyObject *t, PyObject *d, PyObject *i) {
  PyObject *ev;
  if (event_alloc != NULL) {
    ev = event_alloc((PyTypeObject *)event_cls, 3);
    if (ev == NULL) {
      Py_DECREF(t);
      Py_DECREF(d);
      Py_DECREF(i);
      return NULL;
    }
    /* A fresh tuple with one reference: PyTuple_SetItem accepts it and steals each item. */
    PyTuple_SetItem(ev, 0, t);
    PyTuple_SetItem(ev, 1, d);
    PyTuple_SetItem(ev, 2, i);
    return ev;
  }
  PyObject *fields = PyTuple_New(3);
  if (fields == NULL) {
    Py_DECREF(t);
    Py_DECREF(d);
    Py_DECREF(i);
    return NULL;
  }
  PyTuple_SetItem(fields, 0, t);
  PyTuple_SetItem(fields, 1, d);
  PyTuple_SetItem(fields, 2, i);
  PyObject *targs = PyTuple_Pack(1, fields);
  Py_DECREF(fields);
  ev = targs ? tuple_new((PyTypeObject *)event_cls, targs, NULL) : NULL;
  Py_XDECREF(targs);
  return ev;
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
    if (id == NULL) {
      Py_XDECREF(t);
      Py_XDECREF(dv);
      goto fail;
    }
    PyObject *ev = make_event(t, dv, id); /* steals t, dv, id */
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

/* setup(Outcome, StreamItem, Event, read_answer, tables[, direct[, answer_classes, scanner,
 * answer_from_json]]) with tables the vocabulary dicts (Channel, Retry, ErrorName, TaskState,
 * RequestSent, ProtocolVersion, Binding, StreamItemKind), `direct` whether Events may be
 * allocated directly (see event_alloc), and the answer's classes (in A_* order), the json
 * scanner and Python's dict reader for building answers here[, and the "not read yet"
 * sentinel for building them on first access instead]. Returns (outcome fields,
 * stream item fields, answer classes' fields) for Python to check. */
static PyObject *sp_setup(PyObject *self, PyObject *args) {
  PyObject *oc, *ic, *ec, *ra, *tables, *acls = NULL, *scan = NULL, *from_dict = NULL,
           *lazy = NULL;
  int direct = 0;
  (void)self;
  if (!PyArg_ParseTuple(args, "OOOOO!|pO!OOO", &oc, &ic, &ec, &ra, &PyTuple_Type, &tables,
                        &direct, &PyTuple_Type, &acls, &scan, &from_dict, &lazy))
    return NULL;
  if (acls != NULL) {
    if (PyTuple_Size(acls) != A_COUNT || scan == NULL || from_dict == NULL) {
      PyErr_SetString(PyExc_ValueError, "setup: the answer's classes, scanner and reader");
      return NULL;
    }
    for (Py_ssize_t k = 0; k < A_COUNT; k++)
      if (!PyType_Check(PyTuple_GetItem(acls, k))) {
        PyErr_SetString(PyExc_TypeError, "setup: the answer's classes must be classes");
        return NULL;
      }
  }
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
  word_memos_clear();
  replace(&outcome_cls, oc);
  replace(&stream_item_cls, ic);
  bind(&outcome_set, oc, outcome_names, O_COUNT);
  bind(&item_set, ic, item_names, I_COUNT);
  replace(&event_cls, ec);
  event_alloc = direct ? (allocfunc)PyType_GetSlot((PyTypeObject *)ec, Py_tp_alloc) : NULL;
  replace(&read_answer, ra);
  /* The answer's classes: each one's fields, as this module sets them (None: not built
   * here), for Python to check; without them the answers are read by read_answer. */
  PyObject *af = PyTuple_New(A_COUNT);
  if (af == NULL) return NULL;
  for (int c = 0; c < A_COUNT; c++) {
    PyObject *names;
    if (CLASS_FIELDS[c] == NULL) {
      names = Py_None;
      Py_INCREF(names);
    } else {
      Py_ssize_t n = 0;
      while (CLASS_FIELDS[c][n] >= 0) n++;
      names = PyTuple_New(n);
      for (Py_ssize_t k = 0; names != NULL && k < n; k++) {
        Py_INCREF(keys[CLASS_FIELDS[c][k]]);
        PyTuple_SetItem(names, k, keys[CLASS_FIELDS[c][k]]);
      }
    }
    if (names == NULL) {
      Py_DECREF(af);
      return NULL;
    }
    PyTuple_SetItem(af, c, names);
  }
  Py_CLEAR(scan_json);
  Py_CLEAR(unread);
  if (lazy != NULL) {
    Py_INCREF(lazy);
    unread = lazy;
  }
  if (acls != NULL) {
    for (int c = 0; c < A_COUNT; c++) {
      replace(&answer_cls[c], PyTuple_GetItem(acls, c));
      if (CLASS_FIELDS[c] != NULL) {
        PyObject *names[MAX_FIELDS];
        int n = 0;
        while (CLASS_FIELDS[c][n] >= 0) n++;
        answer_field_names(c, names);
        bind(&answer_set[c], answer_cls[c], names, n);
      }
      answer_alloc[c] = (allocfunc)PyType_GetSlot((PyTypeObject *)answer_cls[c], Py_tp_alloc);
      if (answer_alloc[c] == NULL) {
        Py_DECREF(af);
        PyErr_SetString(PyExc_TypeError, "setup: an answer class has no tp_alloc");
        return NULL;
      }
    }
    replace(&answer_from_dict, from_dict);
    replace(&scan_json, scan);
  }
  PyObject *of = names_tuple(OUTCOME_FIELDS, O_COUNT);
  PyObject *itf = of ? names_tuple(ITEM_FIELDS, I_COUNT) : NULL;
  if (itf == NULL) {
    Py_XDECREF(of);
    Py_DECREF(af);
    return NULL;
  }
  return Py_BuildValue("(NNN)", of, itf, af);
}

/* --- Outcome.result read on first access ------------------------------------------------
 * outcome.py's _LazyResult in C (lazy_result installs it on Outcome when the fast path is on):
 * `result`'s slot descriptor, `_result_text`'s, outcome.py's _UNREAD, the _lib module (its
 * SPEEDUPS None: the pure path is asked for, and the answer is read by `pure`, outcome.py's
 * reader, as _LazyResult does) and that reader. The same steps as _LazyResult.__get__; a
 * Python descriptor call costs every stream item and send about two thousand instructions
 * more than this one. */
typedef struct {
  PyObject_HEAD
  PyObject *slot, *text_slot, *unread, *lib, *pure;
  descrgetfunc get, text_get;
  descrsetfunc set, text_set;
} lazy_result;
static PyObject *lazy_type, *s_speedups;

static void lazy_dealloc(PyObject *self) {
  lazy_result *l = (lazy_result *)self;
  PyTypeObject *tp = Py_TYPE(self);
  Py_XDECREF(l->slot);
  Py_XDECREF(l->text_slot);
  Py_XDECREF(l->unread);
  Py_XDECREF(l->lib);
  Py_XDECREF(l->pure);
  freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
  f(self);
  Py_DECREF(tp);
}

static PyObject *lazy_get(PyObject *self, PyObject *obj, PyObject *cls) {
  lazy_result *l = (lazy_result *)self;
  if (obj == NULL || obj == Py_None) {
    Py_INCREF(l->slot);
    return l->slot;
  }
  PyObject *v = l->get(l->slot, obj, cls);
  if (v != l->unread) return v;
  Py_DECREF(v);
  PyObject *text = l->text_get(l->text_slot, obj, cls);
  if (text == NULL) return NULL;
  if (text == Py_None) { /* another thread built it since: the slot is set before the text
                          * is dropped */
    Py_DECREF(text);
    return l->get(l->slot, obj, cls);
  }
  PyObject *sp = PyObject_GetAttr(l->lib, s_speedups);
  if (sp == NULL) {
    Py_DECREF(text);
    return NULL;
  }
  if (sp != Py_None && (PyUnicode_Check(text) || PyBytes_Check(text))) {
    v = answer_from_text(text);
  } else if (PyBytes_Check(text)) { /* Python's reader takes the text as str */
    char *raw;
    Py_ssize_t len;
    PyObject *str = PyBytes_AsStringAndSize(text, &raw, &len) == 0
                        ? PyUnicode_DecodeUTF8(raw, len, "replace")
                        : NULL;
    v = str != NULL ? PyObject_CallFunctionObjArgs(l->pure, str, NULL) : NULL;
    Py_XDECREF(str);
  } else {
    v = PyObject_CallFunctionObjArgs(l->pure, text, NULL);
  }
  Py_DECREF(sp);
  Py_DECREF(text);
  if (v == NULL) return NULL;
  if (l->set(l->slot, obj, v) < 0 || l->text_set(l->text_slot, obj, Py_None) < 0) {
    Py_DECREF(v);
    return NULL;
  }
  return v;
}

static int lazy_set(PyObject *self, PyObject *obj, PyObject *value) {
  lazy_result *l = (lazy_result *)self;
  return l->set(l->slot, obj, value);
}

static PyMemberDef lazy_members[] = {
    {"slot", T_OBJECT_EX, offsetof(lazy_result, slot), READONLY, "The slot's own descriptor."},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot lazy_slots[] = {
    {Py_tp_dealloc, lazy_dealloc},
    {Py_tp_descr_get, lazy_get},
    {Py_tp_descr_set, lazy_set},
    {Py_tp_members, lazy_members},
    {0, NULL},
};

static PyType_Spec lazy_spec = {
    "a2a_core._speedups.LazyResult", sizeof(lazy_result), 0, Py_TPFLAGS_DEFAULT, lazy_slots,
};

/* lazy_result(slot, text_slot, unread, lib, pure) -> the descriptor above. */
static PyObject *sp_lazy_result(PyObject *self, PyObject *args) {
  PyObject *slot, *text_slot, *unread_v, *lib, *pure;
  (void)self;
  if (!PyArg_ParseTuple(args, "OOOOO", &slot, &text_slot, &unread_v, &lib, &pure)) return NULL;
  descrgetfunc get = (descrgetfunc)PyType_GetSlot(Py_TYPE(slot), Py_tp_descr_get);
  descrsetfunc set = (descrsetfunc)PyType_GetSlot(Py_TYPE(slot), Py_tp_descr_set);
  descrgetfunc text_get = (descrgetfunc)PyType_GetSlot(Py_TYPE(text_slot), Py_tp_descr_get);
  descrsetfunc text_set = (descrsetfunc)PyType_GetSlot(Py_TYPE(text_slot), Py_tp_descr_set);
  if (get == NULL || set == NULL || text_get == NULL || text_set == NULL) {
    PyErr_SetString(PyExc_TypeError, "lazy_result: the slots must be data descriptors");
    return NULL;
  }
  if (lazy_type == NULL && (lazy_type = PyType_FromSpec(&lazy_spec)) == NULL) return NULL;
  if (s_speedups == NULL && (s_speedups = PyUnicode_InternFromString("SPEEDUPS")) == NULL)
    return NULL;
  allocfunc alloc = (allocfunc)PyType_GetSlot((PyTypeObject *)lazy_type, Py_tp_alloc);
  lazy_result *l = (lazy_result *)alloc((PyTypeObject *)lazy_type, 0);
  if (l == NULL) return NULL;
  Py_INCREF(slot);
  Py_INCREF(text_slot);
  Py_INCREF(unread_v);
  Py_INCREF(lib);
  Py_INCREF(pure);
  l->slot = slot;
  l->text_slot = text_slot;
  l->unread = unread_v;
  l->lib = lib;
  l->pure = pure;
  l->get = get;
  l->set = set;
  l->text_get = text_get;
  l->text_set = text_set;
  return (PyObject *)l;
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
    {"step_items", (PyCFunction)(void (*)(void))sp_step_items, METH_FASTCALL,
     "Steps of a client-machine call (GIL released while it runs), its items in a list."},
    {"poll", (PyCFunction)(void (*)(void))sp_poll, METH_FASTCALL,
     "poll(call, event) -> the next queued event (an ITEM's StreamItem built here)."},
    {"dechunk", (PyCFunction)(void (*)(void))sp_dechunk, METH_FASTCALL,
     "dechunk(buf, state, remaining) -> (data, used, state, remaining): the well-formed "
     "front of a chunked body."},
    {"poll_items", (PyCFunction)(void (*)(void))sp_poll_items, METH_FASTCALL,
     "poll_items(call, event, items) -> the next queued event that is not an ITEM, each "
     "ITEM's StreamItem appended to items."},
    {"unary", sp_unary, METH_VARARGS, "A whole non-streaming client-machine call -> Outcome."},
    {"a2a_call_free", sp_call_free, METH_O, "a2a_call_free(call), called from here."},
    {"lazy_result", sp_lazy_result, METH_VARARGS,
     "lazy_result(slot, text_slot, unread, lib, pure) -> Outcome.result's descriptor."},
    {"sse_feed", sp_sse_feed, METH_VARARGS, "One packed SSE feed, events built in C."},
    {"answer", sp_answer, METH_O, "answer(text) -> the answer of a canonical JSON text."},
    {"chunk_answer", sp_chunk_answer, METH_O,
     "chunk_answer(text) -> the answer of a text on the usual chunk's template, else None."},
    {"canonical_json", sp_canonical_json, METH_O,
     "canonical_json(text) -> its value as json.loads gives it, or None where the reader gives up."},
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
  memset(key_by_len, -1, sizeof key_by_len);
  memset(key_by_first, -1, sizeof key_by_first);
  for (int c = 0; c < A_COUNT; c++)
    for (const int *f = CLASS_FIELDS[c]; f != NULL && *f >= 0; f++) class_field_count[c]++;
  for (int k = 0; k < K_COUNT; k++) {
    if ((keys[k] = PyUnicode_InternFromString(KEY_NAMES[k])) == NULL) return NULL;
    key_len[k] = (Py_ssize_t)strlen(KEY_NAMES[k]);
    int slot = 0;
    if (key_len[k] > KEY_BY_LEN_MAX) goto too_many;
    while (key_by_len[key_len[k]][slot] >= 0)
      if (++slot == KEY_BY_LEN_SLOTS - 1) goto too_many;
    key_by_len[key_len[k]][slot] = (signed char)k;
    unsigned char first = (unsigned char)KEY_NAMES[k][0];
    slot = 0;
    while (key_by_first[first][slot] >= 0)
      if (++slot == KEY_BY_LEN_SLOTS - 1) goto too_many;
    key_by_first[first][slot] = (signed char)k;
  }
  for (int b = 0; b < 256; b++) str_stop[b] = b == '"' || b == '\\' || b < 0x20;
  for (int k = 0; k < W_COUNT; k++)
    if ((kind_words[k] = PyUnicode_InternFromString(KIND_WORDS[k])) == NULL) return NULL;
  return PyModule_Create(&module);
too_many:
  PyErr_SetString(PyExc_ImportError, "a known key is too long or shares its length with too many");
  return NULL;
}
