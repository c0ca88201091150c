package analysis

// Overhead is what the harness adds to the run it measures: its record
// rate and the latency of the proxies.
type Overhead struct {
	// Records is the number of history records; RecordsPerSec is that
	// over the run's time limit (or its length when cut short).
	Records       int     `json:"records"`
	RecordsPerSec float64 `json:"records_per_sec"`
	// Completions counts the client completions, Unknown those that are
	// info (a high share: an overloaded run).
	Completions int `json:"completions,omitempty"`
	Unknown     int `json:"unknown,omitempty"`
	// DirectP50 and ProxiedP50 are the median PING round trips (µs) to
	// the first node, straight and through the first client's proxy,
	// before the clients start; ProxyAddedP50 their difference.
	DirectP50     float64 `json:"direct_p50_us,omitempty"`
	ProxiedP50    float64 `json:"proxied_p50_us,omitempty"`
	ProxyAddedP50 float64 `json:"proxy_added_p50_us,omitempty"`
	// The same at the 99th percentile (ProxyAddedP99 at least 0).
	DirectP99     float64 `json:"direct_p99_us,omitempty"`
	ProxiedP99    float64 `json:"proxied_p99_us,omitempty"`
	ProxyAddedP99 float64 `json:"proxy_added_p99_us,omitempty"`
}
