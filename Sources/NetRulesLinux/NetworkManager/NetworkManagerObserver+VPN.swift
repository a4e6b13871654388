extension NetworkManagerObserver {
    /// Where its VPN connections meet the netlink observer's VPN interfaces in `vpn`: the process's
    /// shared `VPNNames` for the system bus (the netlink observer of the process's own namespace
    /// uses it too), a private one, which merges nothing in, for another bus.
    var vpnNames: VPNNames { busAddress == nil ? .shared : VPNNames() }
}
