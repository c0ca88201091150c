//go:build !linux

package protocol

// MonoNow is 0 off Linux: answers then carry no mono_ns, and the harness
// dates their validity at its receipt (see Answer.MonoNS).
func MonoNow() int64 { return 0 }
