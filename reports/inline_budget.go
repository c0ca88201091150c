package reports

import (
	"bytes"
	"html/template"
	"slices"

	"github.com/lockstorm/lockstorm/internal/store"
)

// maxIndexBytes is the size index.html keeps under whatever the history's
// size (2 MB with room to spare): the plots are bounded in pixels, but a
// noisy PNG compresses badly, so past this the largest figures are linked
// from the run folder instead of inlined (renderIndex).
const maxIndexBytes = 1_900_000

// renderIndex renders index.html from page, inlining as many of its
// figures as fit under maxIndexBytes beside the rest of the page (which
// it measures by rendering the page with every figure linked) and
// linking the others.
func renderIndex(page pageData) ([]byte, error) {
	linked := slices.Clone(page.Figures)
	for i := range linked {
		linked[i].Data = template.URL(linked[i].File)
	}
	bare := page
	bare.Figures = linked
	var buf bytes.Buffer
	if err := writeIndex(&buf, bare); err != nil {
		return nil, err
	}
	fitInline(page.Figures, maxIndexBytes-buf.Len())
	buf.Reset()
	if err := writeIndex(&buf, page); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// fitInline keeps the figures' inline data within budget bytes: it turns
// the largest ones, one by one, into links to their PNG files beside
// index.html, holders.png (the main figure) last. It reports how many it
// turned.
func fitInline(figs []figure, budget int) int {
	total := 0
	for _, f := range figs {
		total += len(f.Data) - len(f.File)
	}
	order := make([]int, len(figs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		// holders.png, the report's main figure, is linked last
		ha, hb := figs[a].File == store.HoldersFile, figs[b].File == store.HoldersFile
		switch {
		case ha && !hb:
			return 1
		case hb && !ha:
			return -1
		}
		return len(figs[b].Data) - len(figs[a].Data)
	})
	n := 0
	for _, i := range order {
		if total <= budget {
			break
		}
		total -= len(figs[i].Data) - len(figs[i].File)
		figs[i].Data = template.URL(figs[i].File)
		n++
	}
	return n
}
