package nemesis

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
)

func TestFaultJSONRoundTrip(t *testing.T) {
	f := Fault{
		Kind: KindLatency, Shape: LatencyLink, Nodes: []string{"n2"}, Clients: []string{"c1"},
		Links: []cluster.Link{{Client: "c1", Target: "n2"}}, Delay: 150 * time.Millisecond,
		Jitter: 20 * time.Millisecond, Stream: cluster.Upstream, RestartDelay: time.Second,
		JumpBy: -3 * time.Second, Duration: 2 * time.Second,
	}
	b, err := json.Marshal(f)
	clustertest.Must(t, err)
	for _, name := range []string{`"delay_ns":150000000`, `"jump_by_ns":-3000000000`, `"duration_ns":2000000000`} {
		if !strings.Contains(string(b), name) {
			t.Errorf("JSON %s lacks %s", b, name)
		}
	}
	var g Fault
	clustertest.Must(t, json.Unmarshal(b, &g))
	if !reflect.DeepEqual(f, g) {
		t.Errorf("round trip: got %+v, want %+v", g, f)
	}
}

func TestFaultString(t *testing.T) {
	f := Fault{Kind: KindPartition, Shape: ShapeOneNode, Nodes: []string{"n2"},
		Links: []cluster.Link{{Client: "c1", Target: "n2"}}, Duration: 1500 * time.Millisecond}
	want := "partition shape=one-node nodes=n2 links=c1>n2 duration=1.5s"
	if got := f.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	j := Fault{Kind: KindClockJump, Nodes: []string{"n1"}, JumpBy: -2 * time.Second}
	if got := j.String(); got != "clock-jump nodes=n1 jump-by=-2s" {
		t.Errorf("String() = %q", got)
	}
}

// Every kind's Draw is a pure function of the random source.
func TestDrawDeterministic(t *testing.T) {
	set := New(Env{})
	tp := Topology{Nodes: []string{"n1", "n2", "n3", "n4", "n5"}, Clients: []string{"c1", "c2", "c3", "c4"}, TTL: 2 * time.Second}
	for _, k := range Kinds {
		a, b := NewRand(7), NewRand(7)
		for i := 0; i < 50; i++ {
			fa, fb := set[k].Draw(a, tp), set[k].Draw(b, tp)
			if !reflect.DeepEqual(fa, fb) {
				t.Fatalf("%s draw %d differs: %v vs %v", k, i, fa, fb)
			}
			if fa.Kind != k {
				t.Fatalf("%s drew kind %q", k, fa.Kind)
			}
		}
	}
}
