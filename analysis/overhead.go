package analysis

// Overhead is what the harness itself adds to the run it measures: the
// rate it recorded at and the latency the toxiproxy link between a client
// and a node adds to every command.
type Overhead struct {
	// Records is the number of history records; RecordsPerSec is that
	// over the run's time limit (or its length when cut short).
	Records       int     `json:"records"`
	RecordsPerSec float64 `json:"records_per_sec"`
	// Completions is the number of client completions (ok, fail, info)
	// and Unknown those of them that are info. A run whose clients time
	// out (overloaded: commands slower than the node timeout) records
	// fast and proves little: a high Unknown share says so.
	Completions int `json:"completions,omitempty"`
	Unknown     int `json:"unknown,omitempty"`
	// DirectP50 and ProxiedP50 are the median round trips, in µs, of a
	// PING straight to the first node and through the first client's
	// proxy to it, measured before the clients start; ProxyAddedP50 is
	// their difference: the proxies' added latency per command.
	DirectP50     float64 `json:"direct_p50_us,omitempty"`
	ProxiedP50    float64 `json:"proxied_p50_us,omitempty"`
	ProxyAddedP50 float64 `json:"proxy_added_p50_us,omitempty"`
	// DirectP99, ProxiedP99 and ProxyAddedP99 are the same at the 99th
	// percentile (µs): the tail a proxied command pays, not only the
	// median. ProxyAddedP99 is the difference of the two tails, 0 when
	// the proxied tail is the shorter.
	DirectP99     float64 `json:"direct_p99_us,omitempty"`
	ProxiedP99    float64 `json:"proxied_p99_us,omitempty"`
	ProxyAddedP99 float64 `json:"proxy_added_p99_us,omitempty"`
}
