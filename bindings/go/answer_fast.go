package a2a

import (
	"errors"
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
	strs  []string // the *string fields point into chunks of this (one allocation per 8)
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
	s := fastScan{doc: doc}
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

// peek skips white space and returns the next byte (0 at the end).
func (s *fastScan) peek() byte {
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

// object reads an object, calling field for each key with the scanner at the key's
// value; field must consume the value. free: the keys are free-form (escapes allowed);
// else they are field names (a key with an escape goes to encoding/json).
func (s *fastScan) object(free bool, field func(key string) error) error {
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
		var key string
		var err error
		if free {
			key, err = s.str()
		} else {
			key, err = s.key()
		}
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

// key reads an object key without escapes (a key with one goes to encoding/json).
func (s *fastScan) key() (string, error) {
	start := s.i + 1
	for j := start; j < len(s.doc); j++ {
		switch c := s.doc[j]; {
		case c == '"':
			s.i = j + 1
			return s.doc[start:j], nil
		case c == '\\' || c < 0x20:
			return "", errNotFast
		}
	}
	return "", errNotFast
}

// str reads a string value.
func (s *fastScan) str() (string, error) {
	if s.peek() != '"' {
		return "", errNotFast
	}
	start := s.i + 1
	for j := start; j < len(s.doc); j++ {
		switch c := s.doc[j]; {
		case c == '"':
			s.i = j + 1
			return s.doc[start:j], nil
		case c == '\\':
			return s.escaped(start, j)
		case c < 0x20:
			return "", errNotFast
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
	if s.null() {
		return nil
	}
	v, err := s.str()
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
	if s.null() {
		return nil
	}
	v, err := s.str()
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
		err := s.object(true, func(k string) error {
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

// unknown skips the value of a key that names no field.
func (s *fastScan) unknown(names []string, key string) error {
	for _, n := range names {
		if strings.EqualFold(n, key) {
			return errNotFast
		}
	}
	_, err := s.anyValue()
	return err
}

var (
	answerFields  = []string{"kind", "text", "id", "artifacts", "history", "message_id", "role", "parts", "final", "artifact", "append", "last_chunk", "context_id", "task_id", "status", "metadata"}
	partFields    = []string{"kind", "text", "data", "bytes", "uri", "media_type", "name", "metadata"}
	messageFields = []string{"message_id", "role", "context_id", "task_id", "parts", "metadata"}
	// messageSkipped: keys of the canonical JSON's message that Message has no field for
	// (Text() derives the text); skipped without unknown's case-insensitive search.
	messageSkipped = []string{"kind", "text"}
	statusFields   = []string{"state", "message", "timestamp"}
	artifactFields = []string{"artifact_id", "name", "description", "parts", "metadata"}
)

// fieldIndex is key's position in names (exact match), or -1.
func fieldIndex(names []string, key string) int {
	for i, n := range names {
		if n == key {
			return i
		}
	}
	return -1
}

func (s *fastScan) answer(j *answerJSON) error {
	var f seenFields
	return s.object(false, func(key string) error {
		n := fieldIndex(answerFields, key)
		if n < 0 {
			return s.unknown(answerFields, key)
		}
		if err := f.take(n); err != nil {
			return err
		}
		switch n {
		case 0:
			return s.plainStr(&j.Kind)
		case 1:
			return s.optStr(&j.Text)
		case 2:
			return s.plainStr(&j.ID)
		case 3:
			return s.artifacts(&j.Artifacts)
		case 4:
			return s.messages(&j.History)
		case 5:
			return s.plainStr(&j.MessageID)
		case 6:
			return s.plainStr(&j.Role)
		case 7:
			return s.parts(&j.Parts)
		case 8:
			return s.boolean(&j.Final)
		case 9:
			if s.null() {
				return nil
			}
			j.Artifact = new(Artifact)
			return s.artifact(j.Artifact)
		case 10:
			return s.boolean(&j.Append)
		case 11:
			return s.boolean(&j.LastChunk)
		case 12:
			return s.optStr(&j.ContextID)
		case 13:
			return s.optStr(&j.TaskID)
		case 14:
			if s.null() {
				return nil
			}
			j.Status = new(TaskStatus)
			return s.status(j.Status)
		default:
			return s.metadata(&j.Metadata)
		}
	})
}

func (s *fastScan) status(st *TaskStatus) error {
	var f seenFields
	return s.object(false, func(key string) error {
		n := fieldIndex(statusFields, key)
		if n < 0 {
			return s.unknown(statusFields, key)
		}
		if err := f.take(n); err != nil {
			return err
		}
		switch n {
		case 0:
			return s.plainStr(&st.State)
		case 1:
			if s.null() {
				return nil
			}
			st.Message = new(Message)
			return s.message(st.Message)
		default:
			return s.optStr(&st.Timestamp)
		}
	})
}

// readList reads a JSON array of T with one (or null: nil), the shape of every list the
// canonical answer has (history, artifacts, parts).
func readList[T any](s *fastScan, dst *[]T, one func(*T) error) error {
	if s.null() {
		return nil
	}
	out := []T{}
	err := s.array(func() error {
		var zero T
		out = append(out, zero)
		return one(&out[len(out)-1])
	})
	*dst = out
	return err
}

// messages reads a list of messages or null (nil).
func (s *fastScan) messages(dst *[]Message) error {
	return readList(s, dst, s.message)
}

func (s *fastScan) message(m *Message) error {
	var f seenFields
	return s.object(false, func(key string) error {
		n := fieldIndex(messageFields, key)
		if n < 0 {
			if n = fieldIndex(messageSkipped, key); n < 0 {
				return s.unknown(messageFields, key)
			}
			n += len(messageFields)
		}
		if err := f.take(n); err != nil {
			return err
		}
		switch n {
		case 0:
			return s.plainStr(&m.MessageID)
		case 1:
			return s.plainStr(&m.Role)
		case 2:
			return s.optStr(&m.ContextID)
		case 3:
			return s.optStr(&m.TaskID)
		case 4:
			return s.parts(&m.Parts)
		case 5:
			return s.metadata(&m.Metadata)
		default:
			// kind and text: in the canonical JSON, not in Message (Text() derives it);
			// encoding/json ignores them (anything but a string or null goes to it).
			return s.skipStr()
		}
	})
}

// artifacts reads a list of artifacts or null (nil).
func (s *fastScan) artifacts(dst *[]Artifact) error {
	return readList(s, dst, s.artifact)
}

func (s *fastScan) artifact(a *Artifact) error {
	var f seenFields
	return s.object(false, func(key string) error {
		n := fieldIndex(artifactFields, key)
		if n < 0 {
			return s.unknown(artifactFields, key)
		}
		if err := f.take(n); err != nil {
			return err
		}
		switch n {
		case 0:
			return s.plainStr(&a.ArtifactID)
		case 1:
			return s.optStr(&a.Name)
		case 2:
			return s.optStr(&a.Description)
		case 3:
			return s.parts(&a.Parts)
		default:
			return s.metadata(&a.Metadata)
		}
	})
}

// parts reads a list of parts or null (nil).
func (s *fastScan) parts(dst *[]Part) error {
	return readList(s, dst, s.part)
}

// part reads one part as Part.UnmarshalJSON does (partJSON, then the data value and the
// decoded bytes).
func (s *fastScan) part(p *Part) error {
	var bytes *string
	var data any
	hasData := false
	var f seenFields
	err := s.object(false, func(key string) error {
		n := fieldIndex(partFields, key)
		if n < 0 {
			return s.unknown(partFields, key)
		}
		if err := f.take(n); err != nil {
			return err
		}
		switch n {
		case 0:
			return s.plainStr(&p.Kind)
		case 1:
			return s.plainStr(&p.Text)
		case 2:
			hasData = true
			v, err := s.anyValue()
			data = v
			return err
		case 3:
			return s.optStr(&bytes)
		case 4:
			return s.plainStr(&p.URI)
		case 5:
			return s.plainStr(&p.MediaType)
		case 6:
			return s.plainStr(&p.Name)
		default:
			return s.metadata(&p.Metadata)
		}
	})
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
