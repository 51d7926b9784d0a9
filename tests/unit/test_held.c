/* Unit tests for held connections' arithmetic (src/run/held.c): the
 * connections' shares over the clients, the connect ramp's offsets, and the
 * local ports' pre-flight line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "run/held.h"

static void test_shares(void **state)
{
	(void)state;
	struct ldb_config c;
	ldb_config_init(&c);
	c.held = 5001; /* -n 5001 --held over 2 I/O threads' clients */
	c.threads = 2;
	c.conns_per_thread = 2501;
	assert_int_equal(ldb_held_nconns(&c, 0), 2501);
	assert_int_equal(ldb_held_nconns(&c, 1), 2500);
	/* --connect-rate 1000/s: the connections one after the other, 1 ms apart */
	c.connect_rate = 1000;
	assert_int_equal(ldb_held_connect_after(&c, 0, 0), 0);
	assert_int_equal(ldb_held_connect_after(&c, 0, 2500), 2500000000ULL);
	assert_int_equal(ldb_held_connect_after(&c, 1, 0), 2501000000ULL);
	/* without --held: --connections-per-thread, the clients in order */
	c.held = 0;
	c.conns_per_thread = 3;
	assert_int_equal(ldb_held_nconns(&c, 1), 3);
	assert_int_equal(ldb_held_connect_after(&c, 2, 1), 7000000ULL); /* the 8th connection: 7 ms */
	c.connect_rate = 0;
	assert_int_equal(ldb_held_connect_after(&c, 2, 1), 0);
	ldb_config_free(&c);
}

static void test_ports(void **state)
{
	(void)state;
	char err[512] = "";
	/* Linux's default range: 28,232 ports */
	assert_int_equal(ldb_held_ports(28232, 0, 32768, 60999, err, sizeof err), 0);
	assert_int_equal(ldb_held_ports(40000, 0, 32768, 60999, err, sizeof err), -1);
	assert_string_equal(err,
	                    "40000 connections to one server address from 1 source address need 40000 local ports "
	                    "each, but net.ipv4.ip_local_port_range gives 28232 (32768-60999): widen it (sysctl -w "
	                    "net.ipv4.ip_local_port_range=\"1024 65535\") or add addresses with --source-address "
	                    "A,B,...");
	/* two source addresses: 20,000 ports each */
	assert_int_equal(ldb_held_ports(40000, 2, 32768, 60999, err, sizeof err), 0);
	assert_int_equal(ldb_held_ports(60000, 2, 32768, 60999, err, sizeof err), -1);
	assert_non_null(strstr(err, "from 2 source addresses need 30000 local ports each"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shares),
		cmocka_unit_test(test_ports),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
