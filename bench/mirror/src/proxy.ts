import net from 'node:net'

export interface LatencyProxyOptions {
  /** The http URL of the server behind the proxy. */
  target: string
  /** Round-trip time: each direction delivers bytes `rttMs / 2` after they arrive. */
  rttMs: number
  /** One link of this rate shared by the server→client direction of every connection. */
  bandwidthBytesPerSec?: number
  /** Default: any free port. */
  port?: number
}

export interface LatencyProxy {
  /** `http://127.0.0.1:PORT/` */
  url: string
  close: () => Promise<void>
}

// Slices a download into pieces this size so concurrent downloads take turns on the shared link
// rather than waiting out each other's 64 KiB reads.
const LINK_SLICE = 16 * 1024

/**
 * A TCP proxy on 127.0.0.1 that makes a loopback server look remote.
 *
 * - Latency: bytes in each direction are delivered `rttMs / 2` after they arrive, in order.
 * - Connection setup: the upstream socket is opened at once, but the client's bytes are held until
 *   one RTT after accept (when a real client's handshake would have completed) before their
 *   `rttMs / 2` trip. A request on a fresh connection so costs 2 RTT, on a reused one 1 RTT.
 * - Bandwidth: a piece of n bytes from the server occupies the one shared link for n/rate seconds,
 *   starting no earlier than its arrival + `rttMs / 2` nor than the link is free, and is delivered
 *   when its time on the link ends. Client→server bytes (requests) are not limited.
 * - Either side ending ends the other once what is pending for it is delivered; an error or reset
 *   on either destroys both.
 */
export async function startLatencyProxy (opts: LatencyProxyOptions): Promise<LatencyProxy> {
  const target = new URL(opts.target)
  const targetPort = Number(target.port === '' ? 80 : target.port)
  const targetHost = target.hostname.replace(/^\[(.*)\]$/, '$1')
  const oneWay = opts.rttMs / 2
  const rate = opts.bandwidthBytesPerSec
  if (rate !== undefined && !(rate > 0)) throw new Error(`startLatencyProxy: bandwidth must be positive, not ${rate}`)
  let linkFreeAt = 0
  const sockets = new Set<net.Socket>()

  const downstreamDelivery = rate === undefined
    ? (_bytes: number, arrival: number) => arrival + oneWay
    : (bytes: number, arrival: number) => {
        linkFreeAt = Math.max(arrival + oneWay, linkFreeAt) + bytes / rate * 1000
        return linkFreeAt
      }

  const server = net.createServer({ allowHalfOpen: true, noDelay: true }, (client) => {
    const accepted = performance.now()
    const upstream = net.connect({ host: targetHost, port: targetPort, allowHalfOpen: true, noDelay: true })
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => {
        client.destroy()
        upstream.destroy()
      })
    }
    relay(client, upstream, (_bytes, arrival) => Math.max(arrival, accepted + opts.rttMs) + oneWay, Infinity)
    relay(upstream, client, downstreamDelivery, rate === undefined ? Infinity : LINK_SLICE)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  const { port } = server.address() as net.AddressInfo
  return {
    url: `http://127.0.0.1:${port}/`,
    async close () {
      const closed = new Promise<void>((resolve) => server.close(() => { resolve() }))
      for (const socket of sockets) socket.destroy()
      await closed
    },
  }
}

/**
 * Forwards `from`'s bytes to `to`, each piece (at most `slice` bytes) at the time `deliverAt` gives
 * for it (ms on `performance.now()`'s clock; called in arrival order), and `from`'s end after them.
 */
function relay (from: net.Socket, to: net.Socket, deliverAt: (bytes: number, arrival: number) => number, slice: number): void {
  const queue: Array<{ at: number, data: Buffer | null }> = []
  let timer: NodeJS.Timeout | undefined
  let ended = false
  let waitingForDrain = false

  function flush (): void {
    timer = undefined
    if (to.destroyed) return
    const now = performance.now()
    while (queue.length > 0 && queue[0]!.at <= now) {
      const { data } = queue.shift()!
      if (data === null) {
        to.end()
      } else if (!to.write(data) && !waitingForDrain) {
        // The reader is slower than the emulated link: stop reading until it catches up.
        waitingForDrain = true
        from.pause()
        to.once('drain', () => {
          waitingForDrain = false
          from.resume()
        })
      }
    }
    if (queue.length > 0) timer = setTimeout(flush, queue[0]!.at - now)
  }

  function enqueue (at: number, data: Buffer | null): void {
    queue.push({ at, data })
    timer ??= setTimeout(flush, Math.max(0, queue[0]!.at - performance.now()))
  }

  from.on('data', (chunk: Buffer) => {
    const arrival = performance.now()
    for (let offset = 0; offset < chunk.length; offset += slice) {
      const piece = chunk.subarray(offset, offset + slice)
      enqueue(deliverAt(piece.length, arrival), piece)
    }
  })
  from.on('end', () => {
    ended = true
    enqueue(deliverAt(0, performance.now()), null)
  })
  // Closed without an end: a reset or an error, which the other side must see too.
  from.on('close', () => { if (!ended) to.destroy() })
  to.on('close', () => {
    clearTimeout(timer)
    queue.length = 0
  })
}
