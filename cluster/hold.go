package cluster

import "github.com/Shopify/toxiproxy/v2/toxics"

// holdToxicType is the toxiproxy type name of holdToxic.
const holdToxicType = "lockstorm_hold"

// holdToxic holds every byte on its stream without dropping any: it never
// reads its input, so data queues in the channel buffer and then, by
// back-pressure, in the proxy's reader and the sender's TCP buffers. When
// the toxic is removed, toxiproxy forwards everything queued in order
// (ToxicLink.RemoveToxic drains the input), so nothing is lost.
//
// toxiproxy's own latency toxic is not used for this: when another toxic is
// added behind it, or the toxic before it is removed, it is interrupted and
// releases the chunk it was delaying, so a freeze would leak data as soon as
// a cut or latency was composed with it.
type holdToxic struct{}

// holdBuffer is the number of chunks the toxic's input channel queues
// before back-pressure reaches the socket.
const holdBuffer = 1024

// GetBufferSize sizes the toxic's input channel.
func (holdToxic) GetBufferSize() int { return holdBuffer }

// Pipe waits to be interrupted (to be removed, or to let toxiproxy rewire
// the chain) and never touches the data.
func (holdToxic) Pipe(stub *toxics.ToxicStub) { <-stub.Interrupt }

func init() { toxics.Register(holdToxicType, new(holdToxic)) }
