/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eusrv_sor mailbox handlers (sor_rx.c): the top of the protocol, which
 * hands each message to the part it belongs to.
 */
#ifndef EUSRV_SOR_RX_H
#define EUSRV_SOR_RX_H

int sor_rx_init(void);
void sor_rx_exit(void);

#endif /* EUSRV_SOR_RX_H */
