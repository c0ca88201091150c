package history

import (
	"strings"
	"testing"
	"unsafe"
)

// TestScannerRules: blank lines, a truncated last record, bad lines, indices and types.
func TestScannerRules(t *testing.T) {
	rec := func(i int, typ string) string {
		return `{"index":` + string(rune('0'+i)) + `,"time":1,"type":"` + typ + `","process":0,"f":"acquire","key":"k"}`
	}
	cases := []struct {
		name, in string
		n        int
		err      string
		warnLine int // the line of the one warning, 0 for none
	}{
		{"clean", rec(0, "invoke") + "\n\n" + rec(1, "ok") + "\n", 2, "", 0},
		{"truncated last", rec(0, "invoke") + "\n\n" + `{"index":1,"ti`, 1, "", 3},
		{"bad middle", rec(0, "invoke") + "\n{oops\n" + rec(1, "ok") + "\n", 1, "line 2:", 0},
		{"wrong index", rec(0, "invoke") + "\n" + rec(2, "ok") + "\n", 1, "line 2: index 2, want 1", 0},
		{"bad type", rec(0, "begin") + "\n", 0, `line 1: type "begin"`, 0},
	}
	for _, c := range cases {
		sc := NewScanner(strings.NewReader(c.in))
		n := 0
		for sc.Scan() {
			if sc.Op().Index != int64(n) {
				t.Errorf("%s: record %d has index %d", c.name, n, sc.Op().Index)
			}
			n++
		}
		err, warns := sc.Err(), sc.Warnings()
		if n != c.n || (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) ||
			len(warns) != min(c.warnLine, 1) || c.warnLine > 0 && warns[0].Line != c.warnLine {
			t.Errorf("%s: %d records, err %v, warnings %v; want %d, %q, line %d", c.name, n, err, warns, c.n, c.err, c.warnLine)
		}
	}
}

// TestScannerInterns: records share the strings of repeated fields.
func TestScannerInterns(t *testing.T) {
	in := `{"index":0,"time":1,"type":"invoke","process":0,"f":"acquire","key":"lock"}` + "\n" +
		`{"index":1,"time":2,"type":"invoke","process":1,"f":"acquire","key":"lock"}` + "\n"
	var h History
	for sc := NewScanner(strings.NewReader(in)); sc.Scan(); {
		h = append(h, sc.Op())
	}
	if unsafe.StringData(h[0].Key) != unsafe.StringData(h[1].Key) || unsafe.StringData(h[0].F) != unsafe.StringData(h[1].F) {
		t.Error("key and f are not shared between records")
	}
}

// TestScannerOffset: a Scanner started at a record's Offset reads on from
// that record.
func TestScannerOffset(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 5; i++ {
		b.WriteString(`{"index":` + string(rune('0'+i)) + `,"time":1,"type":"invoke","process":` + string(rune('0'+i)) + `,"f":"read"}` + "\n\n")
	}
	in := b.String()
	sc := NewScanner(strings.NewReader(in))
	var offs []int64
	for sc.Scan() {
		offs = append(offs, sc.Offset())
	}
	for i, off := range offs {
		s2 := NewScannerAt(strings.NewReader(in[off:]), off, int64(i))
		if !s2.Scan() || s2.Op().Index != int64(i) || s2.Op().Process != i {
			t.Fatalf("from offset %d: %+v %v", off, s2.Op(), s2.Err())
		}
	}
}
