// SPDX-License-Identifier: MIT
/*
 * eusrv-rdma-qpstate IBDEV: whether the RDMA device IBDEV reports a queue
 * pair's current state when asked (ibv_query_qp's cur_qp_state), which
 * SMC-R relies on: its link is usable for sending only while the queried
 * cur_qp_state is RTS (net/smc smc_link_sendable).  Soft-RoCE (rdma_rxe)
 * before Linux 6.13 keeps cur_qp_state only when a modify call sets it
 * explicitly, which SMC's do not, so SMC-R's first CONFIRM LINK fails with
 * ENOLINK and the connection set-up with it.
 *
 * Makes an RC queue pair, moves it RESET -> INIT without IBV_QP_CUR_STATE,
 * queries it and prints "qp_state=N cur_qp_state=N"; exits 0 if they agree,
 * 1 if not, 2 if the device cannot be used.
 */
#define _GNU_SOURCE
#include <infiniband/verbs.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_qp *qp = NULL;
	struct ibv_qp_init_attr init = { 0 };
	struct ibv_qp_attr attr = { 0 };
	int i, n, rc = 2;

	if (argc != 2) {
		fprintf(stderr, "usage: eusrv-rdma-qpstate IBDEV\n");
		return 2;
	}
	list = ibv_get_device_list(&n);
	if (!list) {
		perror("eusrv-rdma-qpstate: ibv_get_device_list");
		return 2;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx) {
		fprintf(stderr, "eusrv-rdma-qpstate: cannot open %s\n", argv[1]);
		return 2;
	}
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 4, NULL, NULL, 0) : NULL;
	if (!cq) {
		fprintf(stderr, "eusrv-rdma-qpstate: no PD or CQ on %s\n", argv[1]);
		goto out;
	}
	init.send_cq = cq;
	init.recv_cq = cq;
	init.qp_type = IBV_QPT_RC;
	init.cap.max_send_wr = 1;
	init.cap.max_recv_wr = 1;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	qp = ibv_create_qp(pd, &init);
	if (!qp) {
		perror("eusrv-rdma-qpstate: ibv_create_qp");
		goto out;
	}
	attr.qp_state = IBV_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = 1;
	attr.qp_access_flags = IBV_ACCESS_LOCAL_WRITE;
	if (ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
		perror("eusrv-rdma-qpstate: ibv_modify_qp to INIT");
		goto out;
	}
	memset(&attr, 0, sizeof(attr));
	memset(&init, 0, sizeof(init));
	attr.cur_qp_state = IBV_QPS_RESET;
	if (ibv_query_qp(qp, &attr, IBV_QP_STATE | IBV_QP_CUR_STATE, &init)) {
		perror("eusrv-rdma-qpstate: ibv_query_qp");
		goto out;
	}
	printf("qp_state=%d cur_qp_state=%d\n", attr.qp_state, attr.cur_qp_state);
	rc = attr.qp_state == attr.cur_qp_state ? 0 : 1;
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return rc;
}
