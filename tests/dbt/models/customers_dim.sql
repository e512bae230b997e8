{{ config(materialized='table', tblproperties={'order_by': 'id'}) }}
select id, name, tier from {{ ref('customers') }}
