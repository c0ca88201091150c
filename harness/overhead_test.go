package harness

import (
	"testing"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/internal/storetest"
)

// A run states its own overhead: its records per second and the latency
// its proxies add per command, in the result and in test.json.
func TestRunStatesOverhead(t *testing.T) {
	res := shortRun(t, t.TempDir())
	o := res.Overhead
	if n := len(recordsOf(t, res)); o == nil || o.Records != n || o.RecordsPerSec <= 0 {
		t.Fatalf("overhead %+v for %d records", o, n)
	}
	if o.DirectP50 <= 0 || o.ProxiedP50 <= 0 || o.ProxyAddedP50 != max(o.ProxiedP50-o.DirectP50, 0) {
		t.Errorf("proxy latency not measured: %+v", o)
	}
	if o.DirectP99 < o.DirectP50 || o.ProxiedP99 < o.ProxiedP50 || o.ProxyAddedP99 != max(o.ProxiedP99-o.DirectP99, 0) {
		t.Errorf("proxy latency tail not measured: %+v", o)
	}
	var tf analysis.TestFile
	if b := storetest.ReadJSON(t, res.Dir, store.TestFile, &tf); tf.Overhead == nil || tf.Overhead.Records != o.Records {
		t.Errorf("test.json has no overhead: %s", b)
	}
}
