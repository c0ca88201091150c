package reports

import (
	"slices"
	"strconv"

	"github.com/lockstorm/lockstorm/history"
)

// hold is one lease as its holder believed it: from the acquire's ok to
// the release's invoke, the holder learning the lease was lost, or (when
// neither happened) the holder process's last record. Times are ns.
type hold struct {
	Proc  int
	Key   string
	Token string
	Fence int64
	Start int64 // acquire ok time
	End   int64 // end of the belief
	// Validity is the lease's end as the client computed it (the latest
	// of the acquire's and its extends' Validity up to End). When the
	// client recorded none, it is the acquire's invoke time plus the TTL
	// asked for; 0 when the lease never expires (no TTL).
	Validity int64
	// Ended says how the belief ended: "release", "lost" or "gone" (the
	// process stopped recording, e.g. it crashed or the run ended).
	Ended string
	// AcqOp is the acquire ok's record index.
	AcqOp int64
}

// lkey names a lease: its lock key and token.
type lkey struct{ key, token string }

// overlap is a stretch of time in which two different leases were both
// believed held.
type overlap struct {
	Start, End int64
	A, B       int // indices into the holds slice
}

// holds extracts every lease from h, ordered by Start.
func holds(h history.History) []hold {
	var out []hold
	byToken := map[lkey]int{} // open lease -> index into out
	invokes := map[int]*history.Op{}
	lastOf := map[int]int64{} // process -> time of its last record
	for i := range h {
		r := &h[i]
		if r.IsNemesis() {
			continue
		}
		lastOf[r.Process] = r.Time
		if r.Type == history.Invoke {
			invokes[r.Process] = r
		}
		switch {
		case r.F == history.FAcquire && r.Type == history.OK:
			tok := r.Token
			inv := invokes[r.Process]
			if tok == "" && inv != nil {
				tok = inv.Token
			}
			if tok == "" {
				tok = "op#" + strconv.FormatInt(r.Index, 10)
			}
			ho := hold{Proc: r.Process, Key: r.Key, Token: tok, Fence: r.Fence, Start: r.Time, End: -1, Validity: r.Validity, AcqOp: r.Index}
			if ho.Validity == 0 && inv != nil {
				ttl := r.TTL
				if ttl == 0 {
					ttl = inv.TTL
				}
				if ttl > 0 {
					ho.Validity = inv.Time + ttl
				}
			}
			byToken[lkey{r.Key, tok}] = len(out)
			out = append(out, ho)
		case r.F == history.FExtend && r.Type == history.OK && r.Validity != 0:
			if j, ok := byToken[lkey{r.Key, r.Token}]; ok {
				out[j].Validity = max(out[j].Validity, r.Validity)
			}
		case (r.F == history.FRelease || r.F == history.FLost) && r.Type == history.Invoke:
			k := lkey{r.Key, r.Token}
			if r.Token == "" {
				k.token = currentToken(out, byToken, r.Process, r.Key)
			}
			if j, ok := byToken[k]; ok {
				out[j].End = r.Time
				out[j].Ended = map[string]string{history.FRelease: "release", history.FLost: "lost"}[r.F]
				delete(byToken, k)
			}
		}
	}
	for _, j := range byToken {
		out[j].End = max(lastOf[out[j].Proc], out[j].Start)
		out[j].Ended = "gone"
	}
	return out
}

// currentToken is the token of process p's open lease on key, if any.
func currentToken(hs []hold, open map[lkey]int, p int, key string) string {
	best := -1
	for k, j := range open {
		if k.key == key && hs[j].Proc == p && j > best {
			best = j
		}
	}
	if best < 0 {
		return ""
	}
	return hs[best].Token
}

// overlaps finds every pair of different leases on the same key whose
// belief intervals intersect, with the intersection. hs must be ordered by
// Start (holds returns them so).
func overlaps(hs []hold) []overlap {
	var out []overlap
	active := []int{} // indices of holds whose End is after the current Start
	for i := range hs {
		keep := active[:0]
		for _, j := range active {
			if hs[j].End > hs[i].Start {
				keep = append(keep, j)
			}
		}
		active = keep
		for _, j := range active {
			if hs[j].Key != hs[i].Key || hs[j].Token == hs[i].Token {
				continue
			}
			end := min(hs[i].End, hs[j].End)
			if end > hs[i].Start {
				out = append(out, overlap{Start: hs[i].Start, End: end, A: j, B: i})
			}
		}
		active = append(active, i)
	}
	slices.SortFunc(out, func(a, b overlap) int { return compareInt64(a.Start, b.Start) })
	return out
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
