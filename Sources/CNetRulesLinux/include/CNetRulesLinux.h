#ifndef NETRULES_CNETRULESLINUX_H
#define NETRULES_CNETRULESLINUX_H
// Kernel headers for netlink, rtnetlink and ICMP, plus static inline wrappers
// for the macros Swift cannot import.
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#endif
