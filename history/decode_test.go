package history

import (
	"reflect"
	"testing"
)

// decodeCases are records in the encoder's form and beside it: each must
// decode to encoding/json's result, on the fast path or through the
// fallback.
var decodeCases = []string{
	`{"index":3,"time":1000,"type":"ok","process":2,"client":"c1","f":"acquire","key":"lock","token":"t1","fence":7,"nodes":["n1","n2"],"value":-4,"ttl":100,"validity":90,"fault":"x","clients":["c2"],"detail":"d","error":"e"}`,
	` { "index" : 0 , "time" : 0 , "type" : "invoke" , "process" : -1 , "f" : "start" } `,
	`{}`,
	`{"index":1}{"index":2}`,
	`{"index":1,"index":2}`,
	`{"Index":5}`,
	`{"index":1.0}`,
	`{"index":1e3}`,
	`{"index":01}`,
	`{"index":-0}`,
	`{"index":99999999999999999999}`,
	`{"index":null}`,
	`{"key":null}`,
	`{"key":"a\"b"}`,
	`{"key":"caf\u00e9"}`,
	"{\"key\":\"caf\xc3\xa9\"}",
	"{\"key\":\"bad\xff\"}",
	`{"nodes":[]}`,
	`{"nodes":null}`,
	`{"nodes":["a",1]}`,
	`{"unknown":{"a":[1,2]},"index":4}`,
	`{"index":4,}`,
	`{"index":"4"}`,
	`{"type":"ok","process":1.5}`,
	`{"index":4`,
	`[1]`,
	`{"detail":"tab	inside"}`,
}

func TestDecodeFastMatchesJSON(t *testing.T) {
	fast := 0
	for _, c := range decodeCases {
		fast += checkDecode(t, []byte(c))
	}
	var b []byte
	b = appendJSON(b, &Op{Index: 1, Time: 2, Type: Info, Process: NemesisProcess, F: FStart, Fault: "partition", Nodes: []string{"n1"}, Clients: []string{"c1", "c2"}, Detail: "n1 | n2,n3"})
	fast += checkDecode(t, b)
	if fast < 5 {
		t.Errorf("only %d records took the fast path", fast)
	}
}

// checkDecode fails unless decodeFast, when it takes b, gives what
// encoding/json gives; it returns 1 if it took b.
func checkDecode(t *testing.T, b []byte) int {
	t.Helper()
	var want Op
	werr := decodeStrict(b, &want)
	var got Op
	if !decodeFast(b, &got, nil) {
		return 0
	}
	if werr != nil {
		t.Errorf("%s: fast path took a record encoding/json refuses (%v): %+v", b, werr, got)
	} else if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: fast path %+v, encoding/json %+v", b, got, want)
	}
	return 1
}

func FuzzDecodeFast(f *testing.F) {
	for _, c := range decodeCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkDecode(t, b) })
}

func TestDecodeFastInts(t *testing.T) {
	for _, c := range []string{"0", "-0", "7", "-7", "9223372036854775807", "-9223372036854775808",
		"9223372036854775808", "-9223372036854775809", "92233720368547758070", "00", "-", "1-"} {
		checkDecode(t, []byte(`{"value":`+c+`}`))
	}
}
