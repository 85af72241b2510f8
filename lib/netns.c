// SPDX-License-Identifier: GPL-2.0
/*
 * Private network namespaces and the little rtnetlink the suite needs:
 * link up, addresses, dummy and veth links. Everything goes over one
 * NETLINK_ROUTE socket per request, through libmnl.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include <libmnl/libmnl.h>
#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>

#include "bindlab_core.h"

/*
 * Send one request and wait for its ACK, or with cb its one reply, which
 * cb reads; returns 0 or -errno.
 */
static int rtnl_request(struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *nl;
	unsigned int seq, portid;
	int ret, err = 0;

	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl)
		return -errno;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		goto out;
	}
	portid = mnl_socket_get_portid(nl);
	seq = time(NULL);
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_flags |= NLM_F_REQUEST | (cb ? 0 : NLM_F_ACK);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		err = -errno;
		goto out;
	}
	ret = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (ret < 0) {
		err = -errno;
		goto out;
	}
	/* An ACK is an NLMSG_ERROR with error 0; mnl_cb_run maps it to errno. */
	if (mnl_cb_run(buf, ret, seq, portid, cb, data) < 0)
		err = -errno;
out:
	mnl_socket_close(nl);
	return err;
}

static int rtnl_talk(struct nlmsghdr *nlh)
{
	return rtnl_request(nlh, NULL, NULL);
}

static int link_index(const char *ifname)
{
	unsigned int idx = if_nametoindex(ifname);

	return idx ? (int)idx : -ENODEV;
}

/* An RTM_*LINK request about link idx (0: named by an attribute after it). */
static struct nlmsghdr *link_msg(char *buf, int type, int idx)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifm;

	nlh->nlmsg_type = type;
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = idx;
	return nlh;
}

int bl_link_set_up(const char *ifname, bool up)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifm;
	int idx = link_index(ifname);

	if (idx < 0)
		return idx;
	nlh = link_msg(buf, RTM_NEWLINK, idx);
	ifm = mnl_nlmsg_get_payload(nlh);
	ifm->ifi_change = IFF_UP;
	ifm->ifi_flags = up ? IFF_UP : 0;
	return rtnl_talk(nlh);
}

int bl_link_up(const char *ifname)
{
	return bl_link_set_up(ifname, true);
}

static int operstate_attr(const struct nlattr *attr, void *data)
{
	if (mnl_attr_get_type(attr) == IFLA_OPERSTATE &&
	    !mnl_attr_validate(attr, MNL_TYPE_U8))
		*(int *)data = mnl_attr_get_u8(attr);
	return MNL_CB_OK;
}

static int operstate_reply(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct ifinfomsg), operstate_attr, data);
}

/*
 * 1 once the link's operstate is up, 0 before, or -errno. The link watch
 * sets it (rfc2863_policy()) just before it activates the queues.
 * IFF_RUNNING will not do: it also stands for an operstate not yet known,
 * as a new link's is until the link watch runs.
 */
static int link_oper_up(const void *ifname)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int idx = link_index(ifname), state = -ENODATA, err;

	if (idx < 0)
		return idx;
	err = rtnl_request(link_msg(buf, RTM_GETLINK, idx), operstate_reply, &state);
	if (err || state < 0)
		return err ? err : state;
	return state == IF_OPER_UP;
}

int bl_link_wait(const char *ifname, int ms)
{
	return bl_poll(link_oper_up, ifname, ms);
}

bool bl_link_is_up(const char *ifname)
{
	struct ifreq ifr = {};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool up;

	if (fd < 0)
		return false;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	up = !ioctl(fd, SIOCGIFFLAGS, &ifr) && (ifr.ifr_flags & IFF_UP);
	close(fd);
	return up;
}

/* "addr/plen" into its family, address and prefix length; 0 or -EINVAL. */
static int parse_cidr(const char *cidr, int *family, unsigned char *addr, long *plen)
{
	char host[INET6_ADDRSTRLEN + 1];
	const char *slash = strchr(cidr, '/');

	if (!slash || (size_t)(slash - cidr) >= sizeof(host))
		return -EINVAL;
	memcpy(host, cidr, slash - cidr);
	host[slash - cidr] = '\0';
	*family = strchr(host, ':') ? AF_INET6 : AF_INET;
	if (inet_pton(*family, host, addr) != 1 ||
	    bl_parse_long(slash + 1, 0, *family == AF_INET ? 32 : 128, plen))
		return -EINVAL;
	return 0;
}

/* RTM_NEWADDR (exclusive) or RTM_DELADDR of "addr/plen" on ifname. */
static int addr_change(const char *ifname, const char *cidr, int type)
{
	unsigned char addr[sizeof(struct in6_addr)];
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct ifaddrmsg *ifa;
	long plen;
	int family, idx = link_index(ifname);

	if (idx < 0)
		return idx;
	if (parse_cidr(cidr, &family, addr, &plen))
		return -EINVAL;

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	if (type == RTM_NEWADDR)
		nlh->nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = family;
	ifa->ifa_prefixlen = plen;
	ifa->ifa_index = idx;
	/* DAD would leave the address tentative, hence unbindable, for ~1 s. */
	ifa->ifa_flags = family == AF_INET6 ? IFA_F_NODAD : 0;
	mnl_attr_put(nlh, IFA_LOCAL, family == AF_INET ? 4 : 16, addr);
	mnl_attr_put(nlh, IFA_ADDRESS, family == AF_INET ? 4 : 16, addr);
	return rtnl_talk(nlh);
}

int bl_addr_add(const char *ifname, const char *cidr)
{
	return addr_change(ifname, cidr, RTM_NEWADDR);
}

int bl_addr_del(const char *ifname, const char *cidr)
{
	return addr_change(ifname, cidr, RTM_DELADDR);
}

/* RTM_NEWROUTE (exclusive) to "addr/plen"; NULL for a bad cidr. */
static struct nlmsghdr *route_msg(char *buf, const char *cidr, unsigned char table,
				  unsigned char type, unsigned char scope)
{
	unsigned char addr[sizeof(struct in6_addr)];
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	int family;
	long plen;

	if (parse_cidr(cidr, &family, addr, &plen))
		return NULL;
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWROUTE;
	nlh->nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = family;
	rtm->rtm_dst_len = plen;
	rtm->rtm_table = table;
	rtm->rtm_protocol = RTPROT_STATIC;
	rtm->rtm_scope = scope;
	rtm->rtm_type = type;
	mnl_attr_put(nlh, RTA_DST, family == AF_INET ? 4 : 16, addr);
	return nlh;
}

int bl_route_add(const char *cidr, const char *via)
{
	unsigned char gw[sizeof(struct in6_addr)];
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct rtmsg *rtm;
	struct nlmsghdr *nlh;

	nlh = route_msg(buf, cidr, RT_TABLE_MAIN, via ? RTN_UNICAST : RTN_PROHIBIT,
			RT_SCOPE_UNIVERSE);
	if (!nlh)
		return -EINVAL;
	rtm = mnl_nlmsg_get_payload(nlh);
	if (via) {
		if (inet_pton(rtm->rtm_family, via, gw) != 1)
			return -EINVAL;
		mnl_attr_put(nlh, RTA_GATEWAY, rtm->rtm_family == AF_INET ? 4 : 16, gw);
	}
	return rtnl_talk(nlh);
}

int bl_route_local_rto_min(const char *cidr, unsigned int ms)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct nlattr *mx;
	int lo = link_index("lo");

	nlh = route_msg(buf, cidr, RT_TABLE_LOCAL, RTN_LOCAL, RT_SCOPE_HOST);
	if (!nlh)
		return -EINVAL;
	if (lo < 0)
		return lo;
	mnl_attr_put_u32(nlh, RTA_OIF, lo);
	mx = mnl_attr_nest_start(nlh, RTA_METRICS);
	/* TCP reads a route's rto_min only when it is locked (ip route locks it too). */
	mnl_attr_put_u32(nlh, RTAX_LOCK, 1U << RTAX_RTO_MIN);
	mnl_attr_put_u32(nlh, RTAX_RTO_MIN, ms);
	mnl_attr_nest_end(nlh, mx);
	return rtnl_talk(nlh);
}

/* RTM_NEWLINK of a given kind; *linkinfo is left open for the caller. */
static struct nlmsghdr *newlink_header(char *buf, const char *name,
				       const char *kind,
				       struct nlattr **linkinfo)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifm;

	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	*linkinfo = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, kind);
	return nlh;
}

int bl_dummy_add(const char *name)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlattr *linkinfo;
	struct nlmsghdr *nlh;

	nlh = newlink_header(buf, name, "dummy", &linkinfo);
	mnl_attr_nest_end(nlh, linkinfo);
	return rtnl_talk(nlh);
}

int bl_veth_add(const char *name, const char *peer, int peer_nsfd)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlattr *linkinfo, *data, *peer_info;
	struct ifinfomsg *pifm;
	struct nlmsghdr *nlh;

	nlh = newlink_header(buf, name, "veth", &linkinfo);
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	peer_info = mnl_attr_nest_start(nlh, VETH_INFO_PEER);
	pifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*pifm));
	pifm->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, peer);
	if (peer_nsfd >= 0)
		mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, peer_nsfd);
	mnl_attr_nest_end(nlh, peer_info);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, linkinfo);
	return rtnl_talk(nlh);
}

int bl_link_del(const char *ifname)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = link_msg(buf, RTM_DELLINK, 0);

	mnl_attr_put_strz(nlh, IFLA_IFNAME, ifname);
	return rtnl_talk(nlh);
}

/*
 * A second link to bind a socket to (SO_BINDTODEVICE) besides lo: dummy,
 * or a veth pair where the kernel has no dummy driver.
 */
int bl_other_link_add(const char *name, struct bl_why *why)
{
	char peer[IFNAMSIZ];
	int err = bl_dummy_add(name);

	if (err) {
		snprintf(peer, sizeof(peer), "%sp", name);
		err = bl_veth_add(name, peer, -1);
	}
	if (err)
		return bl_why_set(why, err, "cannot create a dummy or veth link: %s",
				  strerror(-err));
	return 0;
}

int bl_netns_lo_up(struct bl_why *why)
{
	int err = bl_link_up("lo");

	if (err)
		return bl_why_set(why, err, "cannot bring lo up: %s",
				  strerror(-err));
	return 0;
}

int bl_netns_enter(struct bl_why *why)
{
	if (unshare(CLONE_NEWNET))
		return bl_why_set(why, errno,
				  "cannot create a network namespace (unshare CLONE_NEWNET): %s%s",
				  strerror(errno),
				  errno == EPERM ? "; needs root or CAP_SYS_ADMIN" : "");
	return bl_netns_lo_up(why);
}

/* Is comm of pid (its first line) name? */
static bool pid_is(int pid, const char *name)
{
	char path[32], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	return !strcmp(comm, name);
}

int bl_netns_is_initial(struct bl_why *why)
{
	struct stat self, init;
	const char *ref;

	/*
	 * kthreadd lives in the initial namespace and, unlike PID 1, can be
	 * looked at without ptrace rights; PID 1 where /proc is not the
	 * host's. What cannot be told is taken as initial: refused.
	 */
	ref = pid_is(2, "kthreadd") ? "/proc/2/ns/net" : "/proc/1/ns/net";
	if (stat("/proc/self/ns/net", &self) || stat(ref, &init))
		return bl_why_set(why, errno,
				  "cannot tell whether this is the initial network namespace (%s: %s)",
				  ref, strerror(errno));
	return self.st_ino == init.st_ino && self.st_dev == init.st_dev;
}

int bl_netns_current(void)
{
	int fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int bl_netns_switch(int nsfd)
{
	return setns(nsfd, CLONE_NEWNET) ? -errno : 0;
}

int bl_netns_create(struct bl_why *why)
{
	int home, fresh, err;

	home = bl_netns_current();
	if (home < 0)
		return bl_why_set(why, home, "cannot open /proc/self/ns/net");
	err = bl_netns_enter(why);
	if (err) {
		close(home);
		return err;
	}
	fresh = bl_netns_current();
	err = bl_netns_switch(home);
	close(home);
	if (fresh < 0 || err) {
		if (fresh >= 0)
			close(fresh);
		return bl_why_set(why, err ? err : fresh,
				  "cannot return to the first namespace");
	}
	return fresh;
}

bool bl_ipv6_usable(struct bl_why *why)
{
	struct sockaddr_in6 sa = {
		.sin6_family = AF_INET6,
		.sin6_addr = IN6ADDR_LOOPBACK_INIT,
	};
	int fd = socket(AF_INET6, SOCK_STREAM, 0);
	bool ok;

	if (fd < 0) {
		bl_why_set(why, errno, "IPv6 not available: socket(AF_INET6): %s",
			   strerror(errno));
		return false;
	}
	ok = !bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	if (!ok)
		bl_why_set(why, errno, "IPv6 not usable: bind([::1]): %s",
			   strerror(errno));
	close(fd);
	return ok;
}
