package resource

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
)

// writeDecoder decodes the lines of writes.jsonl. The lines the resource
// writes (encoding/json of Write: integers, booleans, plain
// strings) are decoded by hand, 5 to 10 times faster than encoding/json,
// which took a tenth of a 10M-record report; any other line, or anything
// in one outside that form, is left to encoding/json, whose result (or
// error) is then the one given. Keys are kept once each (they repeat).
type writeDecoder struct{ keys map[string]string }

func newWriteDecoder() *writeDecoder { return &writeDecoder{keys: map[string]string{}} }

// decode decodes line b into w.
func (d *writeDecoder) decode(b []byte, w *Write) error {
	*w = Write{}
	if d.fast(b, w) {
		return nil
	}
	*w = Write{}
	return json.Unmarshal(b, w)
}

// fast decodes b in the resource's own form, false for anything else.
func (d *writeDecoder) fast(b []byte, w *Write) bool {
	i := 0
	next := func(c byte) bool {
		if i < len(b) && b[i] == c {
			i++
			return true
		}
		return false
	}
	plain := func() ([]byte, bool) { // a string without escapes or bytes beyond ASCII
		if !next('"') {
			return nil, false
		}
		j := i
		for ; j < len(b) && b[j] != '"'; j++ {
			if b[j] == '\\' || b[j] < 0x20 || b[j] >= 0x80 {
				return nil, false
			}
		}
		if j == len(b) {
			return nil, false
		}
		s := b[i:j]
		i = j + 1
		return s, true
	}
	if !next('{') {
		return false
	}
	for !next('}') {
		if i > 1 && !next(',') {
			return false
		}
		name, ok := plain()
		if !ok || !next(':') || !d.field(string(name), b, &i, w, plain) {
			return false
		}
	}
	for ; i < len(b); i++ {
		if b[i] != ' ' && b[i] != '\t' && b[i] != '\r' && b[i] != '\n' {
			return false
		}
	}
	return true
}

// field decodes the value of field name at b[*i:] into w.
func (d *writeDecoder) field(name string, b []byte, i *int, w *Write, plain func() ([]byte, bool)) bool {
	num := func(dst *int64) bool {
		j := *i
		if j < len(b) && b[j] == '-' {
			j++
		}
		k := j
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		if j-k > 1 && b[k] == '0' {
			return false // a leading zero: not JSON
		}
		v, err := strconv.ParseInt(string(b[*i:j]), 10, 64)
		*i, *dst = j, v
		return err == nil
	}
	flag := func(dst *bool) bool {
		for _, lit := range []string{"true", "false"} {
			if len(b)-*i >= len(lit) && string(b[*i:*i+len(lit)]) == lit {
				*i, *dst = *i+len(lit), lit == "true"
				return true
			}
		}
		return false
	}
	switch name {
	case "time":
		return num(&w.Time)
	case "value":
		return num(&w.Value)
	case "fence":
		return num(&w.Fence)
	case "callers":
		var n int64
		ok := num(&n)
		w.Callers = int(n)
		return ok && int64(w.Callers) == n
	case "accepted":
		return flag(&w.Accepted)
	case "stale":
		return flag(&w.Stale)
	case "enter":
		return flag(&w.Enter)
	case "read":
		return flag(&w.Read)
	case "key":
		k, ok := plain()
		if ok {
			if w.Key, ok = d.keys[string(k)]; !ok {
				w.Key = string(k)
				d.keys[w.Key] = w.Key
			}
		}
		return ok
	}
	return false
}

// EachLogged calls f on every entry of the resource's log at path
// (writes.jsonl), in order, decoding one line at a time; the entry is
// valid during the call only. An error names the line.
func EachLogged(path string, f func(w *Write)) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	d := newWriteDecoder()
	var w Write
	for line := 1; sc.Scan(); line++ {
		if err := d.decode(sc.Bytes(), &w); err != nil {
			return fmt.Errorf("%s line %d: %v", path, line, err)
		}
		f(&w)
	}
	return sc.Err()
}
