package checker

import (
	"context"
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
)

// A checker with nothing to check says so (NotApplicable) and keeps its
// verdict: the fencing checker on a history without tokens, the resource
// checker on one without resource ops. With tokens or resource ops,
// NotApplicable stays empty. Compose times each part (Seconds).
func TestNotApplicable(t *testing.T) {
	ctx := context.Background()
	unfenced := historytest.New().
		Op(0, 1, history.OK, 0, "acquire", "k", "t1").
		Op(2, 3, history.OK, 0, "release", "k", "t1").Sorted()
	if r := (Fencing{}).Check(ctx, unfenced); r.Valid != Valid || r.NotApplicable == "" {
		t.Errorf("fencing without tokens: valid %v, not applicable %q; want valid and a reason", r.Valid, r.NotApplicable)
	}
	if r := (&Resource{}).Check(ctx, unfenced); r.Valid != Valid || r.NotApplicable == "" {
		t.Errorf("resource without resource ops: valid %v, not applicable %q; want valid and a reason", r.Valid, r.NotApplicable)
	}
	fenced := historytest.New().
		Op(0, 1, history.OK, 0, "read", "c", "", historytest.Fence(1), historytest.Value(0)).
		Op(2, 3, history.OK, 0, "write", "c", "", historytest.Fence(1), historytest.Value(1)).Sorted()
	if r := (Fencing{}).Check(ctx, fenced); r.NotApplicable != "" {
		t.Errorf("fencing with tokens says it does not apply: %q", r.NotApplicable)
	}
	if r := (&Resource{}).Check(ctx, fenced); r.NotApplicable != "" {
		t.Errorf("resource with counter ops says it does not apply: %q", r.NotApplicable)
	}
	res := Compose(Fencing{}, &Resource{}).Check(ctx, unfenced)
	if res.Seconds <= 0 {
		t.Errorf("Compose left the composed result's Seconds %v", res.Seconds)
	}
	for _, p := range res.Results {
		if p.Seconds <= 0 {
			t.Errorf("%s: Compose left Seconds %v", p.Name, p.Seconds)
		}
	}
}
