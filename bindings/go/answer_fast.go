package a2a

import (
	"errors"
	"math/bits"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"
)

// The answer's canonical JSON (ffi/README.md, "The answer") is read on every send and
// every stream item; encoding/json's reflection over answerJSON was the largest part of
// the binding's own time per call. readAnswerJSON reads that fixed shape with a plain
// scanner instead, into the same answerJSON, and gives up (errNotFast) on anything it does
// not read exactly as json.Unmarshal(b, &answerJSON{}) would: then encoding/json reads the
// text, so results and errors stay encoding/json's (TestFastAnswerMatchesEncodingJSON and
// FuzzFastAnswer compare the two). It gives up on: a key it does not know that matches a
// field's name case-insensitively (encoding/json would take it), a repeated field, a key
// with escapes, a value of the wrong type, a lone UTF-16 surrogate or invalid UTF-8
// (encoding/json replaces them), a number encoding/json refuses, and nesting deeper than
// encoding/json allows. Standard library only, as the rest of the binding (the module has
// no dependencies; the well-kept faster JSON libraries for Go either generate code per type
// or are a dependency, and still read into any shape, not this one).

// answerFallbacks counts the answers the fast reader left to encoding/json (the tests
// check that the library's own texts never are).
var answerFallbacks atomic.Int64

// errNotFast: the fast reader does not read this text; encoding/json does.
var errNotFast = errors.New("a2a: answer JSON not read by the fast reader")

// maxFastDepth is encoding/json's nesting limit; deeper texts go to encoding/json (which
// refuses them).
const maxFastDepth = 10000

// fastScan walks one JSON text. Every string it returns is a substring of doc (the text
// converted once), so an answer's strings cost one allocation together.
type fastScan struct {
	doc   string
	i     int
	depth int
	strs  []string // the *string fields point into chunks of this (first, then one allocation per 8)
	// first is the first chunk of strs, and st the answer's status (answerJSON.Status
	// points to it): both in the scanner's own allocation (it is on the heap anyway: the
	// reader's functions call each other recursively), not one allocation each.
	first [8]string
	st    TaskStatus
	// The first elements of the text's lists, in the same allocation: a list takes its
	// elements from the front of its type's free slots (no two lists of a type are read
	// at once: none nests in itself), and is handed out with its capacity cut to its
	// length, so that an append to it never reaches the next list's elements.
	partSlots [2]Part
	artSlots  [1]Artifact
	msgSlots  [1]Message
	freeParts []Part
	freeArts  []Artifact
	freeMsgs  []Message
}

// readAnswerJSON reads b into j as json.Unmarshal would, or returns errNotFast.
func readAnswerJSON(b []byte, j *answerJSON) error {
	return readAnswerDoc(string(b), j)
}

// readAnswerDoc is readAnswerJSON of a text already in a string: the strings read point
// into doc.
func readAnswerDoc(doc string, j *answerJSON) error {
	if !utf8.ValidString(doc) {
		return errNotFast
	}
	return readValidDoc(doc, j)
}

// readValidDoc is readAnswerDoc of a text known to be valid UTF-8 (the library's canonical
// JSON is a Rust String).
func readValidDoc(doc string, j *answerJSON) error {
	return new(fastScan).read(doc, j)
}

// read reads doc into j with s, a zero scanner.
func (s *fastScan) read(doc string, j *answerJSON) error {
	s.doc = doc
	s.strs = s.first[:0]
	s.freeParts, s.freeArts, s.freeMsgs = s.partSlots[:], s.artSlots[:], s.msgSlots[:]
	if err := s.answer(j); err != nil {
		return err
	}
	s.ws()
	if s.i != len(s.doc) {
		return errNotFast
	}
	return nil
}

func (s *fastScan) ws() {
	for s.i < len(s.doc) {
		switch s.doc[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek skips white space and returns the next byte (0 at the end). The library's text has
// no white space: the byte at i is checked first, without the loop's call.
func (s *fastScan) peek() byte {
	if s.i < len(s.doc) {
		if c := s.doc[s.i]; c > ' ' {
			return c
		}
	}
	s.ws()
	if s.i < len(s.doc) {
		return s.doc[s.i]
	}
	return 0
}

// null consumes a null literal if one is next.
func (s *fastScan) null() bool {
	if s.peek() == 'n' && strings.HasPrefix(s.doc[s.i:], "null") {
		s.i += 4
		return true
	}
	return false
}

// object reads an object of free-form keys (escapes allowed), calling field for each key
// with the scanner at the key's value; field must consume the value.
func (s *fastScan) object(field func(key string) error) error {
	if s.peek() != '{' {
		return errNotFast
	}
	s.depth++
	if s.depth > maxFastDepth {
		return errNotFast
	}
	s.i++
	if s.peek() == '}' {
		s.i++
		s.depth--
		return nil
	}
	for {
		if s.peek() != '"' {
			return errNotFast
		}
		key, err := s.str()
		if err != nil {
			return err
		}
		if s.peek() != ':' {
			return errNotFast
		}
		s.i++
		if err := field(key); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			s.depth--
			return nil
		default:
			return errNotFast
		}
	}
}

// open reads the '{' of an object whose keys are field names, read with field and nextKey;
// more: a key follows.
func (s *fastScan) open() (more bool, err error) {
	if s.peek() != '{' {
		return false, errNotFast
	}
	s.depth++
	if s.depth > maxFastDepth {
		return false, errNotFast
	}
	s.i++
	if s.peek() == '}' {
		s.i++
		s.depth--
		return false, nil
	}
	return true, nil
}

// field reads an object's next key (a field name: a key with an escape goes to
// encoding/json) and its colon; the scanner is then at the key's value.
func (s *fastScan) field() (string, error) {
	if s.peek() != '"' {
		return "", errNotFast
	}
	key, err := s.key()
	if err != nil {
		return "", err
	}
	if s.peek() != ':' {
		return "", errNotFast
	}
	s.i++
	return key, nil
}

// openKey is open and, when a key follows, field: the object's first key.
func (s *fastScan) openKey() (key string, more bool, err error) {
	if more, err = s.open(); more {
		key, err = s.field()
	}
	return key, more, err
}

// nextKey is next and, when a key follows, field: the object's next key (one call per
// key where the readers' loops made two).
func (s *fastScan) nextKey() (key string, more bool, err error) {
	switch s.peek() {
	case ',':
		s.i++
		if s.peek() != '"' {
			return "", false, errNotFast
		}
		if key, err = s.key(); err != nil {
			return "", false, err
		}
		if s.peek() != ':' {
			return "", false, errNotFast
		}
		s.i++
		return key, true, nil
	case '}':
		s.i++
		s.depth--
		return "", false, nil
	}
	return "", false, errNotFast
}

// openArray reads the '[' of an array, read with nextElem; more: an element follows.
func (s *fastScan) openArray() (more bool, err error) {
	if s.peek() != '[' {
		return false, errNotFast
	}
	s.depth++
	if s.depth > maxFastDepth {
		return false, errNotFast
	}
	s.i++
	if s.peek() == ']' {
		s.i++
		s.depth--
		return false, nil
	}
	return true, nil
}

// nextElem reads what follows an array's element: a comma (more) or the end.
func (s *fastScan) nextElem() (more bool, err error) {
	switch s.peek() {
	case ',':
		s.i++
		return true, nil
	case ']':
		s.i++
		s.depth--
		return false, nil
	}
	return false, errNotFast
}

// array reads an array, calling elem with the scanner at each element.
func (s *fastScan) array(elem func() error) error {
	if s.peek() != '[' {
		return errNotFast
	}
	s.depth++
	if s.depth > maxFastDepth {
		return errNotFast
	}
	s.i++
	if s.peek() == ']' {
		s.i++
		s.depth--
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			s.depth--
			return nil
		default:
			return errNotFast
		}
	}
}

// stopByte marks the bytes a string's scan stops at: the closing quote, a backslash and
// the control characters JSON does not allow in a string.
var stopByte = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// key reads an object key up to the next quote. A key with a backslash or a control
// character is no field name: unknown, the only place such a key reaches, gives it to
// encoding/json (a field name is matched as the bytes between the quotes).
func (s *fastScan) key() (string, error) {
	doc, start := s.doc, s.i+1 // locals: the loop keeps them in registers
	j := start
	for j+8 <= len(doc) {
		if k := firstQuote(load8(doc, j)); k < 8 {
			s.i = j + k + 1
			return doc[start : j+k], nil
		}
		j += 8
	}
	for j < len(doc) && doc[j] != '"' {
		j++
	}
	if j < len(doc) {
		s.i = j + 1
		return doc[start:j], nil
	}
	return "", errNotFast
}

// Eight bytes of the text at a time (a key or a string is found in one or two steps, not
// one byte per step): lo8 and hi8 are the low and high bit of every byte.
const (
	lo8 = 0x0101010101010101
	hi8 = 0x8080808080808080
)

// load8 is the eight bytes of doc at j, little-endian (one load).
func load8(doc string, j int) uint64 {
	b := doc[j : j+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// firstQuote is the index of the first '"' among x's bytes, 8 when none is.
func firstQuote(x uint64) int {
	q := x ^ ('"' * lo8)
	// A byte of (q - lo8) &^ q has its high bit set where q's byte is zero; a byte above
	// a zero byte can be marked wrongly (the borrow), never one below: the lowest is right.
	return bits.TrailingZeros64((q-lo8)&^q&hi8) >> 3
}

// firstStop is the index of the first byte of x a string's scan stops at (stopByte: a
// quote, a backslash, a control character), 8 when none is.
func firstStop(x uint64) int {
	q := x ^ ('"' * lo8)
	b := x ^ ('\\' * lo8)
	// (x - 0x20 per byte) &^ x marks the bytes below 0x20 (bytes from 0x80 are never
	// marked); as in firstQuote, the lowest mark of each kind is right.
	m := ((q - lo8) &^ q) | ((b - lo8) &^ b) | ((x - 0x20*lo8) &^ x)
	return bits.TrailingZeros64(m&hi8) >> 3
}

// str reads a string value.
func (s *fastScan) str() (string, error) {
	if s.peek() != '"' {
		return "", errNotFast
	}
	return s.strAt()
}

// strAt reads a string value, the scanner at its opening quote.
func (s *fastScan) strAt() (string, error) {
	doc, start := s.doc, s.i+1
	j := start
	for j+8 <= len(doc) {
		k := firstStop(load8(doc, j))
		j += k
		if k < 8 {
			break
		}
	}
	for j < len(doc) && !stopByte[doc[j]] {
		j++
	}
	if j < len(doc) {
		switch doc[j] {
		case '"':
			s.i = j + 1
			return doc[start:j], nil
		case '\\':
			return s.escaped(start, j)
		}
	}
	return "", errNotFast
}

// escaped reads the rest of a string with escapes, from j (at a backslash).
func (s *fastScan) escaped(start, j int) (string, error) {
	var b strings.Builder
	b.Grow(j - start + 16)
	b.WriteString(s.doc[start:j])
	for j < len(s.doc) {
		c := s.doc[j]
		switch {
		case c == '"':
			s.i = j + 1
			return b.String(), nil
		case c < 0x20:
			return "", errNotFast
		case c != '\\':
			b.WriteByte(c)
			j++
			continue
		}
		if j+1 >= len(s.doc) {
			return "", errNotFast
		}
		switch e := s.doc[j+1]; e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := hex4(s.doc, j+2)
			if !ok {
				return "", errNotFast
			}
			j += 6
			if r >= 0xD800 && r < 0xE000 {
				// Only a high surrogate followed by an escaped low one is a character;
				// encoding/json turns anything else into U+FFFD: left to it.
				lo, ok := hex4(s.doc, j+2)
				if r >= 0xDC00 || !ok || s.doc[j] != '\\' || s.doc[j+1] != 'u' || lo < 0xDC00 || lo >= 0xE000 {
					return "", errNotFast
				}
				r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
				j += 6
			}
			b.WriteRune(r)
			continue
		default:
			return "", errNotFast
		}
		j += 2
	}
	return "", errNotFast
}

// hex4 reads four hex digits at i.
func hex4(doc string, i int) (rune, bool) {
	if i+4 > len(doc) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(doc[i : i+4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// optStr reads a string or null into a *string (encoding/json leaves it nil for null).
func (s *fastScan) optStr(dst **string) error {
	if s.peek() != '"' { // a string first: the library's usual value
		if s.null() {
			return nil
		}
		return errNotFast
	}
	v, err := s.strAt()
	if err != nil {
		return err
	}
	if len(s.strs) == cap(s.strs) {
		s.strs = make([]string, 0, 8) // the earlier chunk stays alive through its pointers
	}
	s.strs = append(s.strs, v)
	*dst = &s.strs[len(s.strs)-1]
	return nil
}

// skipStr skips a string or null (a field of the canonical JSON with no Go field).
func (s *fastScan) skipStr() error {
	if s.null() {
		return nil
	}
	_, err := s.str()
	return err
}

// plainStr reads a string or null into a string (null leaves it unchanged).
func (s *fastScan) plainStr(dst *string) error {
	if s.peek() != '"' { // a string first: the library's usual value
		if s.null() {
			return nil
		}
		return errNotFast
	}
	v, err := s.strAt()
	*dst = v
	return err
}

// boolean reads true, false or null (null leaves it unchanged).
func (s *fastScan) boolean(dst *bool) error {
	switch s.peek() {
	case 't':
		if strings.HasPrefix(s.doc[s.i:], "true") {
			s.i += 4
			*dst = true
			return nil
		}
	case 'f':
		if strings.HasPrefix(s.doc[s.i:], "false") {
			s.i += 5
			*dst = false
			return nil
		}
	case 'n':
		if s.null() {
			return nil
		}
	}
	return errNotFast
}

// number reads a JSON number as encoding/json reads one into an interface: a float64.
func (s *fastScan) number() (float64, error) {
	d, start := s.doc, s.i
	i := start
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		return 0, errNotFast
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return 0, errNotFast
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return 0, errNotFast
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	f, err := strconv.ParseFloat(d[start:i], 64)
	if err != nil {
		return 0, errNotFast // out of range: encoding/json refuses it
	}
	s.i = i
	return f, nil
}

// anyValue reads any JSON value as encoding/json reads one into an interface
// (map[string]any, []any, float64, string, bool, nil).
func (s *fastScan) anyValue() (any, error) {
	switch c := s.peek(); {
	case c == '{':
		m := map[string]any{}
		err := s.object(func(k string) error {
			v, err := s.anyValue()
			m[k] = v
			return err
		})
		return m, err
	case c == '[':
		a := []any{}
		err := s.array(func() error {
			v, err := s.anyValue()
			a = append(a, v)
			return err
		})
		return a, err
	case c == '"':
		return s.str()
	case c == 't' || c == 'f':
		var b bool
		err := s.boolean(&b)
		return b, err
	case c == 'n':
		if s.null() {
			return nil, nil
		}
		return nil, errNotFast
	default:
		return s.number()
	}
}

// metadata reads a free-form object or null into a map (nil for null).
func (s *fastScan) metadata(dst *map[string]any) error {
	if s.null() {
		return nil
	}
	if s.peek() != '{' {
		return errNotFast
	}
	v, err := s.anyValue()
	if err != nil {
		return err
	}
	*dst = v.(map[string]any)
	return nil
}

// seenFields tracks which known fields of one object were read: a repeated one, or an
// unknown key that encoding/json would match to a field case-insensitively, goes to
// encoding/json.
type seenFields struct{ seen uint64 }

// take marks field n as read; errNotFast when it was already.
func (f *seenFields) take(n int) error {
	if f.seen&(1<<n) != 0 {
		return errNotFast
	}
	f.seen |= 1 << n
	return nil
}

// unknown skips the value of a key that names no field. A key with a backslash or a
// control character (key does not look for them) goes to encoding/json.
func (s *fastScan) unknown(names []string, key string) error {
	for i := range len(key) {
		if stopByte[key[i]] {
			return errNotFast
		}
	}
	for _, n := range names {
		if strings.EqualFold(n, key) {
			return errNotFast
		}
	}
	_, err := s.anyValue()
	return err
}

var (
	answerFields   = []string{"kind", "text", "id", "artifacts", "history", "message_id", "role", "parts", "final", "artifact", "append", "last_chunk", "context_id", "task_id", "status", "metadata"}
	partFields     = []string{"kind", "text", "data", "bytes", "uri", "media_type", "name", "metadata"}
	messageFields  = []string{"message_id", "role", "context_id", "task_id", "parts", "metadata"}
	statusFields   = []string{"state", "message", "timestamp"}
	artifactFields = []string{"artifact_id", "name", "description", "parts", "metadata"}
)

func (s *fastScan) answer(j *answerJSON) error {
	var f seenFields
	key, more, err := s.openKey()
	for more && err == nil {
		switch key {
		case "kind":
			if err = f.take(0); err == nil {
				err = s.plainStr(&j.Kind)
			}
		case "text":
			if err = f.take(1); err == nil {
				err = s.optStr(&j.Text)
			}
		case "id":
			if err = f.take(2); err == nil {
				err = s.plainStr(&j.ID)
			}
		case "artifacts":
			if err = f.take(3); err == nil {
				err = s.artifacts(&j.Artifacts)
			}
		case "history":
			if err = f.take(4); err == nil {
				err = s.messages(&j.History)
			}
		case "message_id":
			if err = f.take(5); err == nil {
				err = s.plainStr(&j.MessageID)
			}
		case "role":
			if err = f.take(6); err == nil {
				err = s.plainStr(&j.Role)
			}
		case "parts":
			if err = f.take(7); err == nil {
				err = s.parts(&j.Parts)
			}
		case "final":
			if err = f.take(8); err == nil {
				err = s.boolean(&j.Final)
			}
		case "artifact":
			if err = f.take(9); err == nil && !s.null() {
				j.Artifact = new(Artifact)
				err = s.artifact(j.Artifact)
			}
		case "append":
			if err = f.take(10); err == nil {
				err = s.boolean(&j.Append)
			}
		case "last_chunk":
			if err = f.take(11); err == nil {
				err = s.boolean(&j.LastChunk)
			}
		case "context_id":
			if err = f.take(12); err == nil {
				err = s.optStr(&j.ContextID)
			}
		case "task_id":
			if err = f.take(13); err == nil {
				err = s.optStr(&j.TaskID)
			}
		case "status":
			if err = f.take(14); err == nil && !s.null() {
				j.Status = &s.st // once per text: the field is taken once
				err = s.status(j.Status)
			}
		case "metadata":
			if err = f.take(15); err == nil {
				err = s.metadata(&j.Metadata)
			}
		default:
			err = s.unknown(answerFields, key)
		}
		if err == nil {
			key, more, err = s.nextKey()
		}
	}
	return err
}

func (s *fastScan) status(st *TaskStatus) error {
	var f seenFields
	key, more, err := s.openKey()
	for more && err == nil {
		switch key {
		case "state":
			if err = f.take(0); err == nil {
				err = s.plainStr(&st.State)
			}
		case "message":
			if err = f.take(1); err == nil && !s.null() {
				st.Message = new(Message)
				err = s.message(st.Message)
			}
		case "timestamp":
			if err = f.take(2); err == nil {
				err = s.optStr(&st.Timestamp)
			}
		default:
			err = s.unknown(statusFields, key)
		}
		if err == nil {
			key, more, err = s.nextKey()
		}
	}
	return err
}

// readList reads a JSON array of T with one (or null: nil), the shape of every list the
// canonical answer has (history, artifacts, parts); its elements go to the free slots of
// free first (see fastScan.partSlots).
func readList[T any](s *fastScan, dst *[]T, one func(*fastScan, *T) error, free *[]T) error {
	if s.null() {
		return nil
	}
	out := (*free)[:0] // never nil (a slice of an array): [] is an empty list, as encoding/json's
	more, err := s.openArray()
	for more && err == nil {
		var zero T
		out = append(out, zero)
		if err = one(s, &out[len(out)-1]); err == nil {
			more, err = s.nextElem()
		}
	}
	if len(out) > 0 && cap(*free) > 0 && &out[0] == &(*free)[:1][0] {
		*free = (*free)[len(out):] // taken; else append moved the list out of the free slots
	}
	*dst = out[:len(out):len(out)]
	return err
}

// messages reads a list of messages or null (nil).
func (s *fastScan) messages(dst *[]Message) error {
	return readList(s, dst, (*fastScan).message, &s.freeMsgs)
}

func (s *fastScan) message(m *Message) error {
	var f seenFields
	key, more, err := s.openKey()
	for more && err == nil {
		switch key {
		case "message_id":
			if err = f.take(0); err == nil {
				err = s.plainStr(&m.MessageID)
			}
		case "role":
			if err = f.take(1); err == nil {
				err = s.plainStr(&m.Role)
			}
		case "context_id":
			if err = f.take(2); err == nil {
				err = s.optStr(&m.ContextID)
			}
		case "task_id":
			if err = f.take(3); err == nil {
				err = s.optStr(&m.TaskID)
			}
		case "parts":
			if err = f.take(4); err == nil {
				err = s.parts(&m.Parts)
			}
		case "metadata":
			if err = f.take(5); err == nil {
				err = s.metadata(&m.Metadata)
			}
		case "kind", "text":
			// In the canonical JSON, not in Message (Text() derives it); encoding/json
			// ignores them (anything but a string or null goes to it). A repeat of either
			// goes to encoding/json too.
			n := 6
			if key == "text" {
				n = 7
			}
			if err = f.take(n); err == nil {
				err = s.skipStr()
			}
		default:
			err = s.unknown(messageFields, key)
		}
		if err == nil {
			key, more, err = s.nextKey()
		}
	}
	return err
}

// artifacts reads a list of artifacts or null (nil).
func (s *fastScan) artifacts(dst *[]Artifact) error {
	return readList(s, dst, (*fastScan).artifact, &s.freeArts)
}

func (s *fastScan) artifact(a *Artifact) error {
	var f seenFields
	key, more, err := s.openKey()
	for more && err == nil {
		switch key {
		case "artifact_id":
			if err = f.take(0); err == nil {
				err = s.plainStr(&a.ArtifactID)
			}
		case "name":
			if err = f.take(1); err == nil {
				err = s.optStr(&a.Name)
			}
		case "description":
			if err = f.take(2); err == nil {
				err = s.optStr(&a.Description)
			}
		case "parts":
			if err = f.take(3); err == nil {
				err = s.parts(&a.Parts)
			}
		case "metadata":
			if err = f.take(4); err == nil {
				err = s.metadata(&a.Metadata)
			}
		default:
			err = s.unknown(artifactFields, key)
		}
		if err == nil {
			key, more, err = s.nextKey()
		}
	}
	return err
}

// parts reads a list of parts or null (nil).
func (s *fastScan) parts(dst *[]Part) error {
	return readList(s, dst, (*fastScan).part, &s.freeParts)
}

// part reads one part as Part.UnmarshalJSON does (partJSON, then the data value and the
// decoded bytes).
func (s *fastScan) part(p *Part) error {
	var bytes *string
	var data any
	hasData := false
	var f seenFields
	key, more, err := s.openKey()
	for more && err == nil {
		switch key {
		case "kind":
			if err = f.take(0); err == nil {
				err = s.plainStr(&p.Kind)
			}
		case "text":
			if err = f.take(1); err == nil {
				err = s.plainStr(&p.Text)
			}
		case "data":
			if err = f.take(2); err == nil {
				hasData = true
				data, err = s.anyValue()
			}
		case "bytes":
			if err = f.take(3); err == nil {
				err = s.optStr(&bytes)
			}
		case "uri":
			if err = f.take(4); err == nil {
				err = s.plainStr(&p.URI)
			}
		case "media_type":
			if err = f.take(5); err == nil {
				err = s.plainStr(&p.MediaType)
			}
		case "name":
			if err = f.take(6); err == nil {
				err = s.plainStr(&p.Name)
			}
		case "metadata":
			if err = f.take(7); err == nil {
				err = s.metadata(&p.Metadata)
			}
		default:
			err = s.unknown(partFields, key)
		}
		if err == nil {
			key, more, err = s.nextKey()
		}
	}
	if err != nil {
		return err
	}
	if p.Kind == "data" {
		if !hasData {
			return errNotFast // Part.UnmarshalJSON's error is encoding/json's to give
		}
		p.Data = data
	}
	if bytes != nil {
		b, err := decodeBase64(*bytes)
		if err != nil {
			return errNotFast
		}
		p.Bytes = b
	}
	return nil
}
