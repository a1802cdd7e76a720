// Loaded with `node --require` before the EthereumJS client: a TCP server
// told to listen on a port without an address (or on every address) listens
// on 127.0.0.1 instead. dyno starts servers on loopback only, and the client
// has no flag for the address of its RLPx and Prometheus listeners.
'use strict'
const net = require('node:net')
const listen = net.Server.prototype.listen
const everywhere = new Set([undefined, null, '', '0.0.0.0', '::'])
net.Server.prototype.listen = function (...args) {
  const [first] = args
  if (typeof first === 'object' && first !== null && !Array.isArray(first)) {
    if ('port' in first && everywhere.has(first.host)) {
      args[0] = { ...first, host: '127.0.0.1' }
    }
  } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    if (typeof args[1] !== 'string' || everywhere.has(args[1])) {
      const rest = typeof args[1] === 'string' || args[1] === undefined ? args.slice(2) : args.slice(1)
      args = [first, '127.0.0.1', ...rest]
    }
  }
  return listen.apply(this, args)
}

// Likewise a UDP socket bound without an address (the RLPx server's
// discovery socket, bound even with --discV4 false).
const dgram = require('node:dgram')
const bind = dgram.Socket.prototype.bind
dgram.Socket.prototype.bind = function (...args) {
  const [first] = args
  if (typeof first === 'object' && first !== null) {
    if (everywhere.has(first.address)) args[0] = { ...first, address: '127.0.0.1' }
  } else if (first === undefined || typeof first === 'number' || typeof first === 'function') {
    if (typeof args[1] !== 'string' || everywhere.has(args[1])) {
      const port = typeof first === 'function' ? 0 : first
      const rest = typeof first === 'function' ? [first] : typeof args[1] === 'string' ? args.slice(2) : args.slice(1)
      args = [port ?? 0, '127.0.0.1', ...rest]
    }
  }
  return bind.apply(this, args)
}
