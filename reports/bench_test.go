package reports

import (
	"fmt"
	"testing"
)

// BenchmarkWrite writes the whole report of a synthetic history of 10k
// client operations, porcupine pages included, and of 100k (porcupine.html
// is then the short "too large" page, as Write decides above 20k
// operations).
func BenchmarkWrite(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			res := bigResult(b.TempDir(), n)
			b.ResetTimer()
			for b.Loop() {
				if err := Write(res); err != nil {
					b.Fatal(err)
				}
			}
		})
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
