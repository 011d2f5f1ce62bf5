// MPIJobSpec: the kubeflow.org/v2beta1 MPIJob integration (mpi-operator;
// Kueue framework "kubeflow.org/mpijob"). Pod sets in Kueue's order:
// "launcher" (1) then "worker" (replicas); the local runtime starts the
// workers first and the launcher once they all run (the operator's
// launcherCreationPolicy WaitForWorkersReady; mpirun needs its hosts up).
// Validation is mpi-operator's ValidateMPIJob after its defaulting: a
// Launcher is required and has 1 replica; a Worker has at least 1 replica (an
// unset count defaults to 0 and is rejected, as there); restartPolicy Never or
// OnFailure (defaults: Launcher OnFailure, Worker Never); slotsPerWorker >= 0
// (default 1); cleanPodPolicy All, Running or None; mpiImplementation OpenMPI,
// Intel or MPICH; the longest worker hostname "<name>-worker-<n-1>" is a
// DNS-1123 label. v2beta1 has no container-name rule. Without
// runPolicy.backoffLimit the launcher may restart 6 times (the batch Job
// default mpi-operator's launcher Job gets).
//
// Environment: every pod gets K_MPI_JOB_ROLE (launcher / worker). The
// launcher also gets the implementation's variables as the operator sets them
// (OpenMPI: OMPI_MCA_orte_keep_fqdn_hostnames=true, OMPI_MCA_plm_rsh_args,
// OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM)=1, OMPI_MCA_orte_set_default_slots=<slots>;
// Intel: I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS, I_MPI_PERHOST=<slots>; MPICH:
// HYDRA_LAUNCH_EXTRA_ARGS). Local choice: the operator mounts its hostfile
// from a ConfigMap at /etc/mpi/hostfile and points OMPI_MCA_orte_default_hostfile
// / I_MPI_HYDRA_HOST_FILE / HYDRA_HOST_FILE at it; local pods have no
// volumes, so those are not set and the hostfile's text is given in
// MPI_HOSTFILE_CONTENT instead: one line per worker (the launcher first with
// runLauncherAsWorker), "<address> slots=<slotsPerWorker>" for OpenMPI,
// "<address>:<slotsPerWorker>" for Intel and MPICH, each ending in a newline;
// every address is position.address. A launcher command can write it to a
// file: `echo -n "$MPI_HOSTFILE_CONTENT" > hostfile`.
//
// Success: the Launcher succeeded. The job-role=master label goes to the
// launcher. Stateless; thread-safe.
#pragma once

#include "jobs/kubeflow_job.h"

namespace kuota::jobs {

// What the MPIJob kind says; serve it as KubeflowJobKind(MPIJobSpec()).
const KubeflowKindSpec& MPIJobSpec();

}  // namespace kuota::jobs
