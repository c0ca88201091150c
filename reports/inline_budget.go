package reports

import (
	"html/template"
	"slices"
)

// maxInlineBytes bounds the base64 PNG data index.html carries inline, so
// that the page stays under 2 MB whatever the history's size (the plots
// are bounded in pixels, but a noisy PNG compresses badly). Above it the
// largest figures are linked from the run folder instead of inlined.
const maxInlineBytes = 1_400_000

// fitInline keeps the figures' inline data within maxInlineBytes: it
// turns the largest ones, one by one, into links to their PNG files
// beside index.html. It reports how many it turned.
func fitInline(figs []figure) int {
	total := 0
	for _, f := range figs {
		total += len(f.Data)
	}
	order := make([]int, len(figs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(figs[b].Data) - len(figs[a].Data) })
	n := 0
	for _, i := range order {
		if total <= maxInlineBytes {
			break
		}
		total -= len(figs[i].Data)
		figs[i].Data = template.URL(figs[i].File)
		n++
	}
	return n
}
