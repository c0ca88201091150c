package checker

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// A composed result read back from its JSON has the same typed details
// as the fresh one, and encodes to the same bytes; the kept porcupine
// search is not part of it.
func TestResultJSONKeepsTypedDetails(t *testing.T) {
	h := historytest.NewGen(3, 8, 2).Run(600, true)
	fresh := Standard(Options{Fencing: true}).Check(context.Background(), h)
	b, err := json.Marshal(fresh)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(string(b)), "linearization") {
		t.Errorf("the kept search leaked into the JSON")
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for i, r := range back.Results {
		if r.Details == nil || r.Details.CheckerName() != r.Name {
			t.Errorf("%s: details %T after the round trip", r.Name, r.Details)
		}
		names[r.Name] = true
		if lk, ok := fresh.Results[i].Details.(LockDetails); ok && lk.Linearization == nil {
			t.Errorf("the fresh lock check kept no search")
		}
	}
	for _, n := range []string{"lock", "resource", "exclusion", "liveness", "fencing"} {
		if !names[n] {
			t.Errorf("no %s result", n)
		}
	}
	if lv := back.Results[3].Details.(LivenessDetails); lv.Acquires.OK != fresh.Results[3].Details.(LivenessDetails).Acquires.OK || lv.Acquires.OK == 0 {
		t.Errorf("liveness acquires %+v after the round trip", lv.Acquires)
	}
	again, _ := json.Marshal(back)
	if !bytes.Equal(again, b) {
		t.Errorf("re-encoding differs:\n%s\n%s", b, again)
	}
}

// Details of a checker this version does not know, and a token check's,
// survive a round trip.
func TestResultJSONOtherDetails(t *testing.T) {
	in := `{"name":"x","valid":true,"results":[{"name":"future","valid":true,"details":{"a":[1,2]}},{"name":"tokens","valid":false,"details":{"reused_tokens":2}}]}`
	var r Result
	if err := json.Unmarshal([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	if raw, ok := r.Results[0].Details.(RawDetails); !ok || raw.CheckerName() != "future" {
		t.Errorf("unknown checker's details: %#v", r.Results[0].Details)
	}
	if d, ok := r.Results[1].Details.(TokensDetails); !ok || d.ReusedTokens != 2 {
		t.Errorf("tokens details: %#v", r.Results[1].Details)
	}
	out, _ := json.Marshal(r)
	if string(out) != in {
		t.Errorf("got %s, want %s", out, in)
	}
	if err := json.Unmarshal([]byte(`{"name":"lock","details":{"keys":"many"}}`), &r); err == nil {
		t.Error("mistyped lock details read without an error")
	}
}

// The search the lock check keeps draws its page the same each time,
// the acquire with unknown outcome annotated on its row.
func TestKeptLinearizationDraws(t *testing.T) {
	h := historytest.New().
		Op(0, 1, history.OK, 0, "acquire", "k", "a", historytest.TTL(100)).
		Op(5, 6, history.OK, 0, "release", "k", "a").
		Op(2, 50, history.Info, 1, "acquire", "k", "", historytest.TTL(100)).
		Op(7, 8, history.OK, 2, "acquire", "k", "b", historytest.TTL(100)).Sorted()
	res := exact().Check(context.Background(), h)
	z := res.Details.(LockDetails).Linearization
	if res.Valid != Valid || z == nil || z.Valid() != Valid {
		t.Fatalf("%v, kept %v", res.Valid, z)
	}
	var kept, twice bytes.Buffer
	if err := z.WriteHTML(&kept, FaultWindows(h)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(kept.String(), "acquire info k") {
		t.Errorf("the info acquire is not annotated (%d bytes)", kept.Len())
	}
	if z.WriteHTML(&twice, FaultWindows(h)); twice.String() != kept.String() {
		t.Error("drawing twice adds the annotations twice")
	}
}
