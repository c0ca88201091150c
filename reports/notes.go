package reports

import "fmt"

// notes are index.html's account, for a history not kept whole, of what
// covers the whole run and what only anomaly spans or a sample of it.
func (s *runScan) notes(sampledFences bool) []string {
	if s.whole {
		return nil
	}
	fences := "fencing.png draws every entry of the resource's log, the send times of the writes read around the anomalies (without a log, every write of the history, send times unknown)."
	if sampledFences {
		fences = fmt.Sprintf("fencing.png draws a sample of the resource's log (or, without one, of the history's writes), every stale entry kept, its title says which: past %d entries.", maxFenceSample)
	}
	out := []string{
		fmt.Sprintf("This history has %d records (%d client operations), more than the %d this report keeps whole: it read the history once, streamed, keeping each operation's times and outcome and each lease's, not the records, then read again only the records around the anomalies.", s.records, s.ops.len(), maxWholeRecords),
		"Whole run: the verdict and every checker's result, the coverage, latency-raw.png (crowded outcomes as density), latency-quantiles.png, rate.png, and the overview at the top of holders.png. " + fences,
	}
	if len(s.spans) == 0 {
		out = append(out, "Spans: no anomaly names a record, so holders.png has no detailed span.")
	} else {
		w := fmt.Sprintf("Spans, not the whole run: the detailed spans of holders.png are drawn only from the records read around the first %d anomaly span(s)", len(s.spans))
		for i, r := range s.read {
			w += fmt.Sprintf("%s span %d: records %d..%d (%d read)", map[bool]string{true: ":", false: ";"}[i == 0], i+1, r.first, r.last, r.n)
		}
		w += fmt.Sprintf(". At most %d records are read per span, so a lease or operation begun before a span's first record is not drawn in it. The porcupine pages are the check's own searches of its first failing segments.", maxSpanRecords)
		if s.spansLeft > 0 {
			w += fmt.Sprintf(" %d more anomaly spans are not drawn.", s.spansLeft)
		}
		out = append(out, w)
	}
	return append(out, "Not drawn for a history this long: timeline.html (every operation as a box) and the client-pause stories; results.json and history.jsonl have it all.")
}
