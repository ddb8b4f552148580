{{- define "thg.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "thg.fullname" -}}
{{- if contains (include "thg.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "thg.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "thg.labels" -}}
app.kubernetes.io/name: {{ include "thg.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "thg.selector" -}}
app.kubernetes.io/name: {{ include "thg.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "thg.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{/* Settings every container gets besides the ConfigMap: the base domain and the secrets. */}}
{{- define "thg.env" -}}
- name: BASE_DOMAIN
  value: {{ .Values.baseDomain | quote }}
- name: TRUSTED_PROXIES
  value: {{ .Values.trustedProxies | toString | quote }}
{{- range $name, $key := .Values.secretEnv.keys }}
{{- if $key }}
- name: {{ $name }}
  valueFrom:
    secretKeyRef:
      name: {{ $.Values.secretEnv.existingSecret }}
      key: {{ $key }}
      {{- if has $name ($.Values.secretEnv.optional | default list) }}
      optional: true
      {{- end }}
{{- end }}
{{- end }}
{{- end -}}

{{/* The ConfigMap's settings as plain env entries, for the migrate hook, which runs before
     the release's ConfigMap exists. */}}
{{- define "thg.configEnv" -}}
{{- range $name, $value := .Values.config }}
- name: {{ $name }}
  value: {{ $value | toString | quote }}
{{- end }}
{{- end -}}

{{- define "thg.podSecurity" -}}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
automountServiceAccountToken: false
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* Writable scratch space under a read-only root: Tesseract's and Python's temp files. */}}
{{- define "thg.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: 256Mi
{{- end -}}
