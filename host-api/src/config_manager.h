/* What the configuration file's parser shares with the parser of its
 * `manager` section (config_manager.c). */
#ifndef SBX_CONFIG_MANAGER_H
#define SBX_CONFIG_MANAGER_H

#include <json-c/json.h>
#include <sbx/manager.h>

/* The `manager` section as read: a manager configuration with the
 * defaults of SBX_MANAGER_CONFIG_INIT where the file says nothing.  Its
 * strings are owned. */
typedef struct host_config_manager_section host_config_manager_section;

/* Parse the `manager` object `v` of the file `origin` into *section (made
 * on first use; freed with host_config_manager_section_free even when this
 * fails).  SBX_ERR_CONFIG names the key at fault with its path. */
sbx_status host_config_manager_section_parse(host_config_manager_section **section,
                                            json_object *v, const char *origin,
                                            sbx_error *err);

/* Free a section (NULL accepted). */
void host_config_manager_section_free(host_config_manager_section *section);

/* The manager configuration of a section (NULL: the defaults); strings
 * borrowed from the section. */
void host_config_manager_section_get(const host_config_manager_section *section,
                                    sbx_manager_config *out);

#endif
