package history

// Pair is one client operation: the record index of its invoke and of its
// completion (-1 when the history never completed it).
type Pair struct {
	Invoke, Completion int
}

// Pairs matches each client invoke with its completion, in invoke order: a
// process is single-threaded, so its next completion completes its open
// invoke. Nemesis records and FLost notices are not operations and are
// skipped, as is a completion with no open invoke (a malformed history).
func Pairs(h History) []Pair {
	out := make([]Pair, 0, len(h)/2)
	open := map[int]int{} // process -> index into out
	for i := range h {
		r := &h[i]
		if r.IsNemesis() || r.F == FLost {
			continue
		}
		if r.Type == Invoke {
			open[r.Process] = len(out)
			out = append(out, Pair{Invoke: i, Completion: -1})
			continue
		}
		if j, ok := open[r.Process]; ok {
			delete(open, r.Process)
			out[j].Completion = i
		}
	}
	return out
}
