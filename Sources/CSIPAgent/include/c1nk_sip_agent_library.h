#ifndef C1NK_SIP_AGENT_LIBRARY_H
#define C1NK_SIP_AGENT_LIBRARY_H

#include "c1nk_sip_agent.h"

G_BEGIN_DECLS

/* The agent library's one export, found with dlsym by c1nk_sip_agent_load. */
__attribute__ ((visibility ("default")))
const C1nkSIPAgentInterface *c1nk_sip_agent_interface (void);

G_END_DECLS

#endif
