package resource

import (
	"encoding/json"
	"testing"
)

// writes.jsonl's lines decode as encoding/json decodes them: the
// resource's own lines by hand, any other line (or error) as
// encoding/json has it.
func TestWriteDecoderIsEncodingJSON(t *testing.T) {
	lines := []string{
		`{"time":2788029,"key":"counter2","value":1,"fence":1,"accepted":true,"stale":false}`,
		`{"time":-5,"key":"k","value":-1,"fence":0,"accepted":false,"stale":true,"callers":3,"enter":true}`,
		`{"time":1,"key":"k","value":0,"fence":9223372036854775807,"accepted":true,"stale":false,"read":true}`,
		`{"time":1,"key":"k\u00e9","value":0}`, `{"time":1,"key":"k\"q"}`, `{"time":1,"key":"é"}`,
		`{ "time": 1, "key": "k" }`, `{"Time":7,"KEY":"k"}`, `{"time":1,"unknown":2}`, `{"time":null,"key":"k"}`,
		`{"time":007}`, `{"time":1.5}`, `{"time":99999999999999999999}`, `{"time":-}`, `{"time":1,}`, `{}`,
		`{"time":1} x`, `{"time":1}  `, `{"accepted":tru}`, `{"accepted":1}`, `{"callers":-2}`, `{"time":1,"time":2}`, ``, `[]`,
	}
	d := newWriteDecoder()
	for _, l := range lines {
		var got, want Write
		err := d.decode([]byte(l), &got)
		werr := json.Unmarshal([]byte(l), &want)
		if (err == nil) != (werr == nil) || err == nil && got != want {
			t.Errorf("%s: decoded %+v, %v; encoding/json %+v, %v", l, got, err, want, werr)
		}
	}
	var w Write
	if !d.fast([]byte(lines[0]), &w) || !d.fast([]byte(lines[1]), &w) {
		t.Error("the resource's own lines were not decoded by hand")
	}
}
