package reports

import (
	"testing"
)

// BenchmarkWrite100k writes the whole report of a synthetic history of
// 100k client operations (porcupine.html is then the short "too large"
// page, as Write decides above 20k operations).
func BenchmarkWrite100k(b *testing.B) {
	res := bigResult(b.TempDir(), 100_000)
	b.ResetTimer()
	for b.Loop() {
		if err := Write(res); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWrite10k is the same at 10k operations, porcupine pages
// included.
func BenchmarkWrite10k(b *testing.B) {
	res := bigResult(b.TempDir(), 10_000)
	b.ResetTimer()
	for b.Loop() {
		if err := Write(res); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHolders100k is holders.png alone, the plot with the most
// shapes.
func BenchmarkHolders100k(b *testing.B) {
	res := bigResult(b.TempDir(), 100_000)
	h := historyOf(res)
	end := endTime(h)
	b.ResetTimer()
	for b.Loop() {
		if _, err := holdersPNG(h, nil, nil, nil, end, 8); err != nil {
			b.Fatal(err)
		}
	}
}
