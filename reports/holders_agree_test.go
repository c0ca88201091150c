package reports

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
)

// holders.png draws (in memory and streamed) every lease the exclusion
// checker counts, with its start, end and validity, and its title counts
// the checker's overlaps within validity, on every testdata history.
func TestHoldersAgreeWithChecker(t *testing.T) {
	opt := analysis.LeaseOptions(config.Config{})
	for name, h := range oracleHistories(t) {
		if checker.Validate(h) != nil {
			continue
		}
		res := &analysis.Result{History: history.Slice(h), Config: config.Config{Clients: 8}}
		res.Verdict = analysis.Checkers(res).Check(context.Background(), h)
		var ex checker.ExclusionDetails
		for _, r := range checkerParts(res.Verdict) {
			if d, ok := r.Details.(checker.ExclusionDetails); ok {
				ex = d
			}
		}
		s := passOfResult(t, res)
		var want, drawn, streamed [][3]int64
		for _, l := range checker.Leases(h, opt.Drift, opt.DriftFactor) {
			end, _ := l.HeldUntil()
			want = append(want, [3]int64{l.Start(), end, l.Validity()})
		}
		for _, ho := range s.d.hs {
			drawn = append(drawn, [3]int64{ho.Start, ho.End, ho.Validity})
		}
		log := &s.leases.log
		for i := range log.start.len() {
			streamed = append(streamed, [3]int64{*log.start.at(i), *log.end.at(i), *log.validity.at(i)})
		}
		for _, x := range [][][3]int64{want, drawn, streamed} {
			slices.SortFunc(x, func(a, b [3]int64) int { return slices.Compare(a[:], b[:]) })
		}
		if len(want) != ex.Leases || !slices.Equal(drawn, want) || !slices.Equal(streamed, want) {
			t.Errorf("%s: the checker counts %d leases %v; holders.png draws %v, streamed %v", name, ex.Leases, want, drawn, streamed)
		}
		if s.d.within != ex.Overlaps || s.leases.within != ex.Overlaps {
			t.Errorf("%s: the title counts %d overlaps within validity (streamed %d), the checker %d", name, s.d.within, s.leases.within, ex.Overlaps)
		}
	}
}

// A paused holder outliving its validity: the banner and holders.png's
// title say 0 overlaps within validity, the title names the pair in red.
func TestHoldersTitleCountsWhatTheBannerCounts(t *testing.T) {
	res := pauseResult("")
	h := must[history.History](t)(history.ReadAll(res.History))
	res.Verdict = analysis.Checkers(res).Check(context.Background(), h)
	d := passOfResult(t, res).d
	title := holdersTitle(len(d.hs), d.within, len(d.ovs), len(d.lost))
	banner := strings.Join(provenParts(res), " · ")
	for _, s := range []string{banner, title} {
		if !strings.Contains(s, "3 leases, 0 overlaps within validity") {
			t.Errorf("%q does not count 3 leases, 0 overlaps within validity", s)
		}
	}
	if !strings.Contains(title, "(red: 1 pair held at once)") {
		t.Errorf("title %q does not name the pair held at once it draws", title)
	}
}
