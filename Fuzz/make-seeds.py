#!/usr/bin/env python3
"""Writes the seed corpora of Fuzz/Corpus/<target>/ (run from anywhere; rerun after changing it).

Rule files and timelines are copied from the repository; the text, plugin and control seeds are
written out below; the netlink, nl80211 and ICMP seeds are byte fixtures laid out exactly as the
unit tests lay them out (Tests/NetRulesLinuxTests/Support/RouteFixtures.swift, NL80211Tests.swift,
Tests/NetRulesProbesTests/ICMPPacketTests.swift): host order, x86-64, from the kernel headers.

Inputs that libFuzzer finds interesting are not added here: copy one into the corpus deliberately
(under a name saying what it covers), or into Fuzz/Regressions/<target>/ when it crashed.
"""

import shutil
import struct
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "Fuzz" / "Corpus"


def write(target, name, data):
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    (folder / name).write_bytes(data)


def copy(target, sources, prefix=""):
    for source in sorted(sources):
        write(target, prefix + source.name, source.read_bytes())


# MARK: YAML: rule files and timelines

copy("rules", (ROOT / "rules").glob("*.yaml"))
copy("rules", [ROOT / "examples" / "demo" / "demo.yaml"])
copy("rules", (ROOT / "Tests" / "NetRulesConfigTests" / "Golden").glob("*.yaml"), prefix="golden-")
copy("timeline", (ROOT / "examples" / "timelines").glob("*.yaml"))
write("timeline", "every-kind.yaml", """\
- at: 0s
  facts: { ssid: "Caf\\u00e9", bssid: a4:2b:8c:92:47:3d, connectivity: online, signal: "-61" }
- at: 500ms
  facts: { gateway: 10.0.0.1, ip: [10.0.0.7/24, "fd00::7/64"], network: wifi, interfaces.wg0: down }
- at: 1m30s
  facts: { vpn.connected: "true", vpn.server: a, vpn.load: "2.5", hosts.intranet: unreachable }
  unknown: [signal]
- at: 1h30m
  facts: { ssid: ~, bssid: null, connectivity: portal, portal.url: "http://portal.example/login?a=1&b=2" }
- at: 2d
  unknown: ssid
""")
write("timeline", "errors.yaml", """\
- at: 10s
  facts: { ssid: A }
- at: 5s
  facts: { ssid: { nested: map } }
- facts: { ssid: B }
- at: 10
  facts: {}
- at: 1000000000000h
  unknown: [a, [b]]
- just a string
""")

# MARK: text: durations, addresses, templates and shell commands

write("text", "durations.txt", "\n".join([
    "500ms", "10s", "5m", "8h", "1h30m", "2d", "0s", "1.5s", "250us", "3µs", " 10s ", "10", "1x",
    "0.000001ms", "36500d", "36525d1s", "99999999999999999999d", "1.s", ".5m", "1h 30m", "",
]))
write("text", "macs.txt", "\n".join([
    "a1:b2:c3:d4:e5:f6", "A1-B2-C3-D4-E5-F6", "a1 b2 c3 d4 e5 f6", "a1b2c3d4e5f6", "a1:b2:c3:d4:5:e6",
    "A1.B2.C3.D4.E5.F6", "  a1  b2 c3 d4 e5 f6\t", "a1::b2:c3:d4:e5:f6", "a1:b2:c3:d4:e5", "g1:b2:c3:d4:e5:f6",
    "a1b2c3d4e5f", "00:11:22:33:44:55",
]))
write("text", "addresses.txt", "\n".join([
    "192.168.1.7", "10.0.0.1", "255.255.255.255", "0.0.0.0", "256.1.1.1", "01.2.3.4", "1.2.3",
    "fe80::1", "fe80::1%eth0", "::", "::1", "::ffff:10.0.0.1", "2001:db8::2", "2001:db8:0:0:1:0:0:1",
    "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7::", "1::2::3", "::ffff:1.2.3.4.5", "12345::",
    "10.0.0.0/8", "192.168.1.7/24", "fd00::/8", "::/0", "0.0.0.0/0", "10.0.0.0/33", "fd00::/129",
    "10.0.0.0/-1", "10.0.0.0/", "/8", "10.0.0.0/8/8",
]))
write("text", "names.txt", "\n".join([
    "ssid", "bssid", "gateway.mac", "portal.url", "hosts.intranet", "interfaces.wg0", "fact.vpn.connected",
    "env.TOKEN", "env.A.B", "rule", "edge", "time", "hosts.", "fact.", "sid",
]))
write("text", "templates.txt", "\n".join([
    "{{ssid}} joined at {{time}}",
    "{{ edge }}: {{portal.url}}",
    "{{}}", "{{ssid", "}}{{", "{{{ssid}}}", "{{nope}}", "plain text",
]).encode() + b"\0Caf\xe9\0http://portal.example/?a=1&b=2\0$(reboot)")
write("text", "shell-contexts.txt", "\n".join([
    "echo {{ssid}}",
    "echo \"{{ssid}}\"",
    "echo '{{ssid}}'",
    "echo \"prefix-{{ssid}}-suffix\" {{bssid}}x",
    "curl -d \"ssid={{ssid}}\" {{portal.url}}",
    "notify-send \"Wi-Fi login needed\" \"$NETRULES_SSID wants you to log in: {{portal.url}}\"",
    "printf '%s\\n' {{hosts.intranet}} > /tmp/{{ssid}}",
    "cat <<EOF\n{{ssid}}\nEOF",
    "echo $({{ssid}})",
    "echo `{{ssid}}`",
    "eval {{ssid}}",
    "echo hi # {{ssid}}",
    "x={{ssid}} sh -c 'echo $x'",
    "case {{network}} in wifi) echo w;; esac",
    "echo ${HOME:-{{ssid}}}",
    "[ \"{{connectivity}}\" = portal ] && echo {{env.TOKEN}}",
    "echo \"unterminated {{ssid}}",
    "echo {{ssid}}; echo {{rule}} | tr a b && echo {{edge}} || echo {{time}}",
]).encode() + b"\0O'Brien \"quoted\" $HOME `x` \\\n\0\xff\xfe-n\0-rf /\0")

# MARK: plugin lines and control requests

write("plugin", "lines.jsonl", "\n".join([
    '{"vpn.connected": true, "vpn.name": "work", "count": 3}',
    '{"ssid": "Office", "bssid": null, "dns": ["10.0.0.53", "10.0.0.54"]}',
    '{"a": [[1, 2], [3]]}',
    '{"a": [1, null]}',
    '{"a": {"b": 1}}',
    '{"a": 1e999}',
    'not json',
    '[1, 2]',
    '{"bad key": 1}',
    '   ',
    '{"n": -0.5e-3, "s": "\\u00e9\\ud83d\\ude00\\ud800", "t": "\\"\\\\\\/\\b\\f\\n\\r\\t"}',
    '{"vpn.connected": false, "vpn.interface": null}\r',
]))
write("plugin", "vpn.jsonl", '{"vpn.connected": true, "vpn.interface": "wg0"}\n')
for name, line in [
    ("status", '{"version":1,"command":"status"}'),
    ("explain", '{"version":1,"command":"explain","rule":"office"}'),
    ("watch", '{"version":1,"command":"watch"}'),
    ("rules", '{"version":1,"command":"rules"}'),
    ("version-2", '{"version":2,"command":"status"}'),
    ("version-float", '{"version":1.0,"command":"status"}'),
    ("no-version", '{"command":"status"}'),
    ("explain-no-rule", '{"version":1,"command":"explain"}'),
    ("unknown-command", '{"version":1,"command":"reboot"}'),
    ("nested", '{"version":1,"command":"status","x":[{"a":[null,true,false,-1.5E+3,"\\u0041"]}]}'),
    ("array", '[1, "two", {"three": 3}]'),
    ("not-json", 'status'),
]:
    write("control", name + ".json", line)

# MARK: byte fixtures: netlink, nl80211, ICMP


def le(fmt, *values):
    return struct.pack("<" + fmt, *values)


def pad(data):
    return data + b"\0" * (-len(data) % 4)


def attribute(kind, value):
    return pad(le("HH", 4 + len(value), kind) + value)


def message(kind, body, flags=0, sequence=0):
    """nlmsghdr (16 bytes) + body, padded."""
    return pad(le("IHHII", 16 + len(body), kind, flags, sequence, 0) + body)


# rtnetlink message types (linux/rtnetlink.h).
NEWLINK, DELLINK, NEWADDR, DELADDR, NEWROUTE, DELROUTE, NEWNEIGH = 16, 17, 20, 21, 24, 25, 28
UP_FLAGS = 0x1 | 0x2 | 0x40 | 0x1000 | 0x10000


def link(index, name, flags, mac=bytes([2, 0, 0, 0, 0, 1]), wireless=False):
    """ifinfomsg + IFLA_IFNAME (3), IFLA_ADDRESS (1), IFLA_OPERSTATE (16), IFLA_WIRELESS (11)."""
    info = bytes([0, 0]) + le("H", 1) + le("i", index) + le("I", flags) + le("I", 0)
    body = info + attribute(3, name.encode() + b"\0") + attribute(1, mac) + attribute(16, bytes([6]))
    return body + (attribute(11, b"") if wireless else b"")


def address(family, index, data, prefix, flags=0x80, broadcast=None):
    """ifaddrmsg + IFA_ADDRESS (1), IFA_LOCAL (2), IFA_BROADCAST (4), IFA_FLAGS (8)."""
    out = bytes([family, prefix, flags & 0xFF, 0]) + le("I", index) + attribute(1, data)
    if family == 2:
        out += attribute(2, data)
    if broadcast:
        out += attribute(4, broadcast)
    return out + attribute(8, le("I", flags))


def route(family, gateway, index, metric, destination=None, length=0, table=254, multipath=None):
    """rtmsg + RTA_TABLE (15), RTA_PRIORITY (6), RTA_DST (1), RTA_GATEWAY (5), RTA_OIF (4), RTA_MULTIPATH (9)."""
    out = bytes([family, length, 0, 0, min(table, 255), 3, 0, 1]) + le("I", 0)
    out += attribute(15, le("I", table)) + attribute(6, le("I", metric))
    if destination:
        out += attribute(1, destination)
    if gateway:
        out += attribute(5, gateway)
    if index is not None:
        out += attribute(4, le("i", index))
    if multipath:
        out += attribute(9, multipath)
    return out


def nexthop(index, gateway):
    """rtnexthop (len, flags, hops, ifindex) + RTA_GATEWAY."""
    attributes = attribute(5, gateway)
    return le("HBBi", 8 + len(attributes), 0, 0, index) + attributes


def neighbour(index, ip, mac, state=0x02, family=2):
    """ndmsg + NDA_DST (1), NDA_LLADDR (2)."""
    out = bytes([family, 0, 0, 0]) + le("i", index) + le("H", state) + bytes([0, 1]) + attribute(1, ip)
    return out + (attribute(2, mac) if mac else b"")


V6 = bytes([0x20, 0x01, 0x0D, 0xB8] + [0] * 11 + [2])
FE80 = bytes([0xFE, 0x80] + [0] * 13 + [1])
GATEWAY_MAC = bytes([0, 0x11, 0x22, 0x33, 0x44, 0x55])
eth0 = message(NEWLINK, link(2, "eth0", UP_FLAGS), sequence=7)
wlan0 = message(NEWLINK, link(3, "wlan0", UP_FLAGS, wireless=True))
v4 = message(NEWADDR, address(2, 2, bytes([192, 168, 1, 7]), 24, broadcast=bytes([192, 168, 1, 255])))
v6 = message(NEWADDR, address(10, 2, V6, 64, flags=0x40))
default4 = message(NEWROUTE, route(2, bytes([10, 0, 0, 1]), 2, 100), flags=0x100)
default6 = message(NEWROUTE, route(10, FE80, 3, 1024))
multipath = message(NEWROUTE, route(2, None, None, 0, multipath=nexthop(2, bytes([10, 0, 0, 254]))))
subnet = message(NEWROUTE, route(2, None, 2, 0, destination=bytes([10, 0, 0, 0]), length=8))
gateway = message(NEWNEIGH, neighbour(2, bytes([10, 0, 0, 1]), GATEWAY_MAC))
done = message(3, bytes(4), sequence=7)
error = message(2, le("i", -16) + bytes(16))
write("netlink", "link.bin", eth0)
write("netlink", "address-v4.bin", v4)
write("netlink", "address-v6-tentative.bin", v6)
write("netlink", "route-default.bin", default4)
write("netlink", "route-multipath.bin", multipath)
write("netlink", "neighbour.bin", gateway)
write("netlink", "error.bin", error)
write("netlink", "dump-and-done.bin", eth0 + wlan0 + v4 + v6 + default4 + default6 + subnet + gateway + done)
write("netlink", "truncated-tail.bin", eth0 + done + eth0[:20])
write("netlink", "deletes.bin", eth0 + v4 + default4 + gateway
      + message(DELADDR, address(2, 2, bytes([192, 168, 1, 7]), 24))
      + message(DELROUTE, route(2, None, None, 100)) + message(DELLINK, link(2, "eth0", 0x2 | 0x1000)))

# nl80211 commands and attributes (linux/nl80211.h).
NEW_INTERFACE, NEW_STATION, NEW_SCAN_RESULTS, CONNECT, ROAM, DISCONNECT = 7, 19, 34, 46, 47, 48
IFINDEX, IFNAME, MAC, STA_INFO, WIPHY_FREQ, BSS, SSID, STATUS_CODE, REASON_CODE = 3, 4, 6, 21, 38, 47, 52, 72, 54
AP = bytes([0x00, 0x11, 0x22, 0x33, 0x44, 0x55])
ODD_SSID = b"Caf\xe9\x00!"
NL80211_FAMILY = 0x1C


def genl(command, attributes):
    """genlmsghdr (cmd, version, reserved) + attributes."""
    return bytes([command, 1, 0, 0]) + attributes


index4 = attribute(IFINDEX, le("I", 4))
elements = bytes([1, 2, 0x82, 0x84, 0, len(ODD_SSID)]) + ODD_SSID
bss = (attribute(1, AP) + attribute(2, le("I", 5180)) + attribute(6, elements) + attribute(7, le("i", -6100))
       + attribute(9, le("I", 1)))
nl80211 = {
    "connect": genl(CONNECT, index4 + attribute(MAC, AP) + attribute(STATUS_CODE, le("H", 0))),
    "roam": genl(ROAM, index4 + attribute(MAC, bytes([0, 0x11, 0x22, 0x33, 0x44, 0x66]))),
    "disconnect": genl(DISCONNECT, index4 + attribute(REASON_CODE, le("H", 3))),
    "scan-bss": genl(NEW_SCAN_RESULTS, index4 + attribute(BSS, bss)),
    "station": genl(NEW_STATION, index4 + attribute(MAC, AP) + attribute(STA_INFO, attribute(7, bytes([0xC6])))),
    "interface": genl(NEW_INTERFACE, index4 + attribute(IFNAME, b"wlan0\0") + attribute(SSID, ODD_SSID)
                      + attribute(WIPHY_FREQ, le("I", 2412))),
}
group = attribute(2, le("I", 5)) + attribute(1, b"mlme\0")
family_reply = genl(1, attribute(1, le("H", NL80211_FAMILY)) + attribute(2, b"nl80211\0")
                    + attribute(7, attribute(1, group) + attribute(2, attribute(2, le("I", 6)) + attribute(1, b"scan\0"))))
for name, payload in nl80211.items():
    write("nl80211", name + ".bin", payload)
write("nl80211", "family-reply.bin", family_reply)
write("nl80211", "datagram.bin", message(0x10, family_reply)
      + b"".join(message(NL80211_FAMILY, nl80211[n]) for n in ["interface", "connect", "station", "roam", "disconnect"]))


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def with_checksum(icmp):
    value = checksum(icmp)
    return icmp[:2] + struct.pack("!H", value) + icmp[4:]


IP_HEADER = bytes([0x45, 0, 0, 30, 0, 0, 0x40, 0, 64, 1, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1])
write("icmp", "datagram-v4-reply.bin", bytes([0, 0, 0, 0, 0x12, 0x34, 0x00, 0x05, 1, 2, 3]))
write("icmp", "raw-v4-reply.bin", IP_HEADER + with_checksum(bytes([0, 0, 0, 0, 0xBE, 0xEF, 0x00, 0x2A, 0x6E, 0x72])))
write("icmp", "raw-v4-options.bin", bytes([0x46]) + IP_HEADER[1:] + bytes([1, 1, 1, 0])
      + with_checksum(bytes([0, 0, 0, 0, 0, 1, 0, 2])))
write("icmp", "v6-reply.bin", bytes([129, 0, 0x12, 0x34, 0, 1, 0, 2, 9]))
write("icmp", "v4-request.bin", bytes([8, 0, 0, 0, 0, 1, 0, 1]))
write("icmp", "unreachable.bin", bytes([3, 1, 0, 0, 0, 0, 0, 0]))
write("portal-http", "apple-success.txt",
      "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 68\r\n\r\n"
      "<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>")
write("portal-http", "generate-204.txt", "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nDate: Tue, 01 Dec 2026 12:00:00 GMT\r\n\r\n")
write("portal-http", "redirect-relative.txt", "HTTP/1.1 302 Found\r\nLocation: ../login?next=$(id)\r\nContent-Length: 0\r\n\r\n")
write("portal-http", "chunked-login.txt", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
      "6;x=y\r\n<form>\r\n7\r\nLog in.\r\n0\r\nX-Trailer: 1\r\n\r\n")
write("portal-http", "interim-then-511.txt", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 511 Network Authentication Required\n"
      "Location: //portal.test/\n\nlog in")
write("portal-http", "probe-url.txt", "http://[2001:db8::1]:81/generate_204#frag")
write("icmp", "raw-udp.bin", bytes([0x45, 0, 0, 28, 0, 0, 0x40, 0, 64, 17, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1]) + bytes(8))
